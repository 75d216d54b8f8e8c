package cpu

import (
	"sync"
	"sync/atomic"
)

// parallelFor runs fn(worker, task) for task in [0, n) on up to threads goroutines,
// which take tasks from a shared counter (so uneven tasks balance: attention rows
// of a prefill chunk grow with their position). Each output value is computed inside
// one task, so the split never changes a result — only which goroutine produced it.
// worker < threads indexes per-thread scratch.
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

// parallelBlocks splits [0, n) into one contiguous block per thread and runs
// fn(worker, lo, hi) on each, the calling goroutine taking block 0. For equal-cost
// tasks (the row tiles of a matmul) this beats a shared counter: each core streams
// one contiguous stretch of the weights instead of short interleaved tiles, and no
// cache line bounces between cores. As in parallelFor, the split changes no value.
func parallelBlocks(threads, n int, fn func(worker, lo, hi int)) {
	threads = min(threads, n)
	if threads <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(threads - 1)
	for w := 1; w < threads; w++ {
		go func() {
			defer wg.Done()
			fn(w, w*n/threads, (w+1)*n/threads)
		}()
	}
	fn(0, 0, n/threads)
	wg.Wait()
}
