package cpu

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestParallelBlocksRunsEveryTaskOnce checks the split with stealing: every task
// runs exactly once, inside [lo, hi) calls within range, whichever thread is slow.
func TestParallelBlocksRunsEveryTaskOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 7, 64, 1000} {
			runs := make([]atomic.Int32, n)
			parallelBlocks(threads, n, func(w, lo, hi int) {
				require.True(t, 0 <= lo && lo < hi && hi <= n)
				require.Less(t, w, max(1, threads))
				if w == 1 && lo%5 == 0 {
					time.Sleep(50 * time.Microsecond) // a slow core: others steal its tail
				}
				for i := lo; i < hi; i++ {
					runs[i].Add(1)
				}
			})
			for i := range runs {
				require.EqualValues(t, 1, runs[i].Load(), "threads %d, n %d, task %d", threads, n, i)
			}
		}
	}
}
