package cpu

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// TestPoolRunsEveryTaskOnce checks the split with stealing: every task runs
// exactly once, inside [lo, hi) calls within range, on a worker index below the
// section's thread count, whichever thread is slow, whether the workers are
// spinning or parked when the section starts, and with fewer threads asked for
// than the pool has.
func TestPoolRunsEveryTaskOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		p := newPool(threads)
		for _, parked := range []bool{false, true} {
			for _, ask := range []int{threads, 2, 1} {
				for _, n := range []int{0, 1, 2, 7, 64, 1000} {
					if parked {
						time.Sleep(2 * spinFor)
					}
					runs := make([]atomic.Int32, n)
					limit := max(1, min(ask, threads, n))
					p.blocksOf(ask, n, func(w, lo, hi int) {
						require.True(t, 0 <= lo && lo < hi && hi <= n)
						require.Less(t, w, limit)
						if w == 1 && lo%5 == 0 {
							time.Sleep(50 * time.Microsecond) // a slow core: others steal its tail
						}
						for i := lo; i < hi; i++ {
							runs[i].Add(1)
						}
					})
					for i := range runs {
						require.EqualValues(t, 1, runs[i].Load(), "threads %d, asked %d, n %d, task %d", threads, ask, n, i)
					}
				}
			}
		}
		p.close()
	}
}

// TestPoolUsesItsWorkers checks that sections really run on the workers too
// (a pool that quietly ran everything on the caller would pass the test above).
func TestPoolUsesItsWorkers(t *testing.T) {
	p := newPool(2)
	defer p.close()
	var onWorker atomic.Int32
	for range 50 {
		p.forEach(2, 8, func(w, _ int) {
			if w == 1 {
				onWorker.Add(1)
			}
			time.Sleep(20 * time.Microsecond)
		})
	}
	require.Positive(t, onWorker.Load())
}

// TestEngineCloseStopsWorkers checks that Close ends the pool's goroutines, that
// an engine dropped without Close has them ended by the garbage collector, and
// that a closed pool still runs sections on its caller.
func TestEngineCloseStopsWorkers(t *testing.T) {
	m := buildModel(t, invarianceSpecs["llama-bf16"])
	e, err := New(m, engine.Options{MaxSeqLen: 16, MetricLayer: -1, Threads: 4})
	require.NoError(t, err)
	p := e.pool
	require.EqualValues(t, 3, p.running.Load())
	step(t, e, engine.Input{Slot: 0, Tokens: []int32{1, 2, 3}})
	require.NoError(t, e.Close())
	require.NoError(t, e.Close())
	require.Zero(t, p.running.Load()) // Close waits for them

	dropped, err := New(m, engine.Options{MaxSeqLen: 16, MetricLayer: -1, Threads: 4})
	require.NoError(t, err)
	step(t, dropped, engine.Input{Slot: 0, Tokens: []int32{1, 2, 3}})
	p = dropped.pool // holding the pool does not keep the engine alive
	dropped = nil
	require.Eventually(t, func() bool {
		runtime.GC()
		return p.running.Load() == 0
	}, 5*time.Second, 10*time.Millisecond)

	p = newPool(3)
	p.close()
	ran := 0
	p.forEach(3, 5, func(w, _ int) {
		require.Zero(t, w)
		ran++
	})
	require.Equal(t, 5, ran)
}

// BenchmarkPoolSection measures one parallel section of 32 short tasks (about a
// microsecond each, a small matmul's tiles) on one and on two threads: with the
// workers kept running, two threads should take about half the time of one.
func BenchmarkPoolSection(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			p := newPool(threads)
			defer p.close()
			sums := make([]float64, 8*threads) // one cache line per worker
			for range b.N {
				p.blocksOf(threads, 32, func(w, lo, hi int) {
					for t := lo; t < hi; t++ {
						s := sums[8*w]
						for k := range 1000 {
							s += float64(k * t)
						}
						sums[8*w] = s
					}
				})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/section")
		})
	}
}
