package cpu

import (
	"sync"
	"sync/atomic"
)

// parallelFor runs fn(worker, task) for task in [0, n) on up to threads goroutines,
// which take tasks from a shared counter (so uneven tasks balance). Each output
// value is computed inside one task, so the split never changes a result — only
// which goroutine produced it. worker < threads indexes per-thread scratch.
func parallelFor(threads, n int, fn func(worker, task int)) {
	if threads > n {
		threads = n
	}
	if threads <= 1 {
		for t := 0; t < n; t++ {
			fn(0, t)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(threads)
	for w := 0; w < threads; w++ {
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1)) - 1
				if t >= n {
					return
				}
				fn(w, t)
			}
		}()
	}
	wg.Wait()
}
