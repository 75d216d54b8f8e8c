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

// parallelBlocks runs fn(worker, lo, hi) over [0, n) split into one contiguous
// block per thread, the calling goroutine taking block 0. For equal-cost tasks (the
// row tiles of a matmul) this beats a shared counter: each core streams one
// contiguous stretch of the weights instead of short interleaved tiles, and no
// cache line bounces between cores. A thread that finishes its block takes tiles
// one at a time from the far end of another's, so a core that the OS lends to
// other work for a while does not hold the whole step back. As in parallelFor,
// the split changes no value: every task still runs once, whole, on one thread.
func parallelBlocks(threads, n int, fn func(worker, lo, hi int)) {
	threads = min(threads, n)
	if threads <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	blocks := make([]span, threads)
	for w := range blocks {
		blocks[w].set(w*n/threads, (w+1)*n/threads)
	}
	work := func(w int) {
		own := &blocks[w]
		for {
			t, ok := own.takeFront()
			if !ok {
				break
			}
			fn(w, t, t+1)
		}
		for k := 1; k < threads; k++ {
			other := &blocks[(w+k)%threads]
			for {
				t, ok := other.takeBack()
				if !ok {
					break
				}
				fn(w, t, t+1)
			}
		}
	}
	var wg sync.WaitGroup
	wg.Add(threads - 1)
	for w := 1; w < threads; w++ {
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
}

// span is a range of task indices [lo, hi) packed in one word, so its owner
// (from the front) and thieves (from the back) take tasks with one CAS each.
type span struct{ v atomic.Uint64 }

func (s *span) set(lo, hi int) { s.v.Store(uint64(lo)<<32 | uint64(hi)) }

func (s *span) takeFront() (int, bool) {
	for {
		old := s.v.Load()
		lo, hi := int(old>>32), int(old&0xffffffff)
		if lo >= hi {
			return 0, false
		}
		if s.v.CompareAndSwap(old, uint64(lo+1)<<32|uint64(hi)) {
			return lo, true
		}
	}
}

func (s *span) takeBack() (int, bool) {
	for {
		old := s.v.Load()
		lo, hi := int(old>>32), int(old&0xffffffff)
		if lo >= hi {
			return 0, false
		}
		if s.v.CompareAndSwap(old, uint64(lo)<<32|uint64(hi-1)) {
			return hi - 1, true
		}
	}
}
