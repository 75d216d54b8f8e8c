package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A decode step runs some 240 parallel sections (seven matmuls and an attention
// per layer), each tens of microseconds long. Starting goroutines for each one
// costs about as much as the work: the new goroutine lands in the caller's run
// queue and an idle P has to wake on a futex and steal it, so at batch 1 the
// second core barely helped. The pool keeps its workers running instead: after a
// section a worker spins for a while on the job word, so the next section starts
// on it at once, and only then parks (llama.cpp and run.c also spin at their
// barriers). The split never changes a value: every task runs once, whole, on
// one thread.

// spinFor is how long an idle worker (and a caller waiting for one) spins before
// parking: longer than the gaps between the sections of a step, far shorter than
// the time between steps when the caller samples and writes traces.
const spinFor = 50 * time.Microsecond

// pool runs sections of tasks on its caller and threads−1 long-lived workers.
// Only one section runs at a time (the engine's Step holds its lock).
type pool struct {
	threads int
	// state is the job word: the section's generation in the top 32 bits, a
	// closed flag (bit 31: all tasks taken, no one may join) and the number of
	// workers inside the section (the low 31 bits). Workers join with a CAS, so
	// the caller waits only for workers that are running a task, never for one
	// that is parked or descheduled.
	state atomic.Uint64

	// The current section, written by the caller before it publishes state.
	fn     func(worker, lo, hi int)
	active int    // workers taking part: those with index < active
	blocks []span // one per thread: [lo, hi) of task indices

	sleeping []atomic.Bool   // per worker: parked, waiting for wake
	wake     []chan struct{} // per worker, buffered: a hint to look at state
	finished chan struct{}   // buffered: the last worker left a closed section
	quit     chan struct{}   // closed by close
	exited   sync.WaitGroup  // the workers' goroutines
	running  atomic.Int32    // workers started and not yet ended
	closing  sync.Once
}

const (
	closedBit  = 1 << 31
	activeMask = closedBit - 1
)

// newPool starts threads−1 workers (none for one thread). close stops them.
func newPool(threads int) *pool {
	threads = max(1, threads)
	p := &pool{
		threads:  threads,
		blocks:   make([]span, threads),
		sleeping: make([]atomic.Bool, threads),
		wake:     make([]chan struct{}, threads),
		finished: make(chan struct{}, 1),
		quit:     make(chan struct{}),
	}
	p.state.Store(closedBit) // generation 0, closed: nothing to join
	for w := 1; w < threads; w++ {
		p.wake[w] = make(chan struct{}, 1)
		p.exited.Add(1)
		p.running.Add(1)
		go p.worker(w)
	}
	return p
}

// close stops the workers and waits for their goroutines to end. It must not
// run concurrently with a section; later sections run on the caller alone.
func (p *pool) close() {
	if p == nil {
		return
	}
	p.closing.Do(func() {
		close(p.quit)
		p.exited.Wait()
		p.threads = 1
	})
}

// blocksOf runs fn(worker, lo, hi) over [0, n) on up to threads threads: one
// contiguous block of tasks per thread, the caller taking block 0. For
// equal-cost tasks (the row tiles of a matmul) this beats a shared counter: each
// core streams one contiguous stretch of the weights and no cache line bounces
// between cores. A thread that finishes its block takes tasks one at a time from
// the far end of another's, so a core that the OS lends to other work for a
// while, or a worker still waking up, does not hold the section back. Calls pass
// one task at a time (hi = lo+1) whenever more than one thread runs.
// worker < min(threads, n) indexes per-thread scratch.
func (p *pool) blocksOf(threads, n int, fn func(worker, lo, hi int)) {
	if p == nil {
		threads = 1
	} else {
		threads = min(threads, p.threads, n)
	}
	if threads <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	p.fn, p.active = fn, threads
	for w := range p.blocks {
		lo, hi := min(w, threads)*n/threads, min(w+1, threads)*n/threads
		p.blocks[w].set(lo, hi)
	}
	gen := p.state.Load()>>32 + 1
	p.state.Store(gen << 32) // open, no one inside yet
	for w := 1; w < threads; w++ {
		if p.sleeping[w].CompareAndSwap(true, false) {
			select {
			case p.wake[w] <- struct{}{}:
			default:
			}
		}
	}
	p.work(0)
	p.shut()
	p.fn = nil
}

// forEach runs fn(worker, task) for task in [0, n) on up to threads threads (see
// blocksOf; uneven tasks balance through the stealing).
func (p *pool) forEach(threads, n int, fn func(worker, task int)) {
	p.blocksOf(threads, n, func(worker, lo, hi int) {
		for t := lo; t < hi; t++ {
			fn(worker, t)
		}
	})
}

// work runs thread w's block, then takes tasks from the far end of the others'.
func (p *pool) work(w int) {
	threads := p.active
	own := &p.blocks[w]
	for {
		t, ok := own.takeFront()
		if !ok {
			break
		}
		p.fn(w, t, t+1)
	}
	for k := 1; k < threads; k++ {
		other := &p.blocks[(w+k)%threads]
		for {
			t, ok := other.takeBack()
			if !ok {
				break
			}
			p.fn(w, t, t+1)
		}
	}
}

// shut closes the section to newcomers (every task is taken once the caller's
// work returns) and waits for the workers still inside to leave.
func (p *pool) shut() {
	for {
		old := p.state.Load()
		if p.state.CompareAndSwap(old, old|closedBit) {
			break
		}
	}
	deadline := time.Time{}
	for i := 0; p.state.Load()&activeMask != 0; i++ {
		if i%64 != 63 {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(spinFor)
		} else if time.Now().After(deadline) {
			// A worker was descheduled inside a task: wait for it without a core.
			for p.state.Load()&activeMask != 0 {
				<-p.finished
			}
			return
		}
	}
}

// worker is worker w's goroutine: it joins each open section it sees, spinning
// between sections for spinFor and then parking until the caller wakes it.
func (p *pool) worker(w int) {
	defer p.exited.Done()
	defer p.running.Add(-1)
	seen := uint64(0)
	for {
		s, ok := p.next(w, seen)
		if !ok {
			return
		}
		seen = s >> 32
		if !p.join(s) {
			continue
		}
		// Inside, the section's fields stay put until this worker leaves.
		if w < p.active {
			p.work(w)
		}
		if p.state.Add(^uint64(0))&(closedBit|activeMask) == closedBit {
			select { // the last one out of a closed section: tell a parked caller
			case p.finished <- struct{}{}:
			default:
			}
		}
	}
}

// join enters the section whose state word was s, unless it has changed or closed.
func (p *pool) join(s uint64) bool {
	for s&closedBit == 0 {
		if p.state.CompareAndSwap(s, s+1) {
			return true
		}
		next := p.state.Load()
		if next>>32 != s>>32 {
			return false
		}
		s = next
	}
	return false
}

// next waits until a section newer than generation seen is published and returns
// its state word, or false once the pool is closed.
func (p *pool) next(w int, seen uint64) (uint64, bool) {
	deadline := time.Now().Add(spinFor)
	for i := 0; ; i++ {
		if s := p.state.Load(); s>>32 != seen {
			return s, true
		}
		if i%64 != 63 {
			continue
		}
		if time.Now().Before(deadline) {
			if i%4096 == 4095 {
				runtime.Gosched() // let the process's other goroutines run
			}
			continue
		}
		p.sleeping[w].Store(true)
		if s := p.state.Load(); s>>32 != seen {
			p.sleeping[w].Store(false)
			return s, true
		}
		select {
		case <-p.wake[w]:
		case <-p.quit:
			return 0, false
		}
		deadline = time.Now().Add(spinFor)
	}
}

// span is a range of task indices [lo, hi) packed in one word, so its owner
// (from the front) and thieves (from the back) take tasks with one CAS each. It
// fills a cache line so that threads taking from their own spans never share one.
type span struct {
	v atomic.Uint64
	_ [56]byte
}

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
