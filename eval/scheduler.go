package eval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
)

// workQueue hands work items to the workers in canonical order. Workers pull from it,
// so a fast device takes more items; results do not depend on who took what because
// every sequence carries its own RNG stream.
type workQueue struct {
	mu    sync.Mutex
	items []workItem
	next  int
}

func (q *workQueue) pop() (workItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next >= len(q.items) {
		return workItem{}, false
	}
	it := q.items[q.next]
	q.next++
	return it, true
}

// progressSink receives live counts from the schedulers.
type progressSink interface {
	Tokens(worker, n int)
	Done(worker int)
}

// SchedulerStats says where a worker's time went, for the outside-the-engine share.
type SchedulerStats struct {
	// Device is the engine's own name for its device (a GPU's model), if it has one.
	Device    string
	Wall      time.Duration
	InEngine  time.Duration
	Steps     int
	Generated int
	Finished  int
}

// scheduler keeps every slot of one engine busy: each step feeds a prefill chunk or
// one decode token per live sequence, and a finished sequence's slot is refilled
// before the next step (continuous batching).
type scheduler struct {
	worker   int
	eng      Engine
	queue    *workQueue
	tok      Tokenizer
	lim      *limits
	chunk    int
	finished func(Record) error
	progress progressSink

	live  []*sequence // indexed by slot; nil is free
	in    []engine.Input
	out   []engine.Output
	stats SchedulerStats
}

func newScheduler(worker int, eng Engine, q *workQueue, tok Tokenizer, lim *limits, finished func(Record) error, p progressSink) (*scheduler, error) {
	opts := eng.Options()
	if opts.Slots < 1 {
		return nil, fmt.Errorf("worker %d: engine has %d slots", worker, opts.Slots)
	}
	chunk := opts.PrefillChunk
	if chunk <= 0 {
		chunk = 1 << 30
	}
	return &scheduler{
		worker: worker, eng: eng, queue: q, tok: tok, lim: lim, chunk: chunk,
		finished: finished, progress: p,
		live: make([]*sequence, opts.Slots),
	}, nil
}

// run steps until the queue is empty and every sequence finished, or ctx ends. A
// sequence that was live when it stops is simply not journaled: the resumed run
// starts it again from its prompt and, being deterministic, produces the same tokens.
func (s *scheduler) run(ctx context.Context) (err error) {
	start := time.Now()
	defer func() {
		s.stats.Wall = time.Since(start)
		for slot, seq := range s.live {
			if seq != nil {
				s.eng.Free(slot)
				s.live[slot] = nil
			}
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.refill()
		s.in = s.in[:0]
		for slot, seq := range s.live {
			if seq == nil {
				continue
			}
			n := min(len(seq.tokens)-seq.fed, s.chunk)
			s.in = append(s.in, engine.Input{Slot: slot, Tokens: seq.tokens[seq.fed : seq.fed+n], Attn: seq.view})
		}
		if len(s.in) == 0 {
			return nil
		}
		t0 := time.Now()
		if err := s.eng.Step(ctx, s.in, &s.out); err != nil {
			return fmt.Errorf("worker %d: engine step: %w", s.worker, err)
		}
		s.stats.InEngine += time.Since(t0)
		s.stats.Steps++
		if len(s.out) != len(s.in) {
			return fmt.Errorf("worker %d: engine returned %d outputs for %d inputs", s.worker, len(s.out), len(s.in))
		}
		if err := s.afterStep(); err != nil {
			return err
		}
	}
}

func (s *scheduler) afterStep() error {
	generated := 0
	for i := range s.in {
		slot := s.in[i].Slot
		seq := s.live[slot]
		seq.fed += len(s.in[i].Tokens)
		if seq.fed < len(seq.tokens) {
			continue // mid-prefill: this chunk's output predicts a prompt token
		}
		if err := seq.advance(&s.out[i], s.lim); err != nil {
			return fmt.Errorf("worker %d: %w", s.worker, err)
		}
		generated++
		if seq.finish == "" {
			continue
		}
		if err := s.finished(seq.record()); err != nil {
			return err
		}
		s.eng.Free(slot)
		s.live[slot] = nil
		s.stats.Finished++
		if s.progress != nil {
			s.progress.Done(s.worker)
		}
	}
	s.stats.Generated += generated
	if s.progress != nil && generated > 0 {
		s.progress.Tokens(s.worker, generated)
	}
	return nil
}

// refill starts queued items in every free slot.
func (s *scheduler) refill() {
	for slot := range s.live {
		if s.live[slot] != nil {
			continue
		}
		it, ok := s.queue.pop()
		if !ok {
			return
		}
		p := it.problem
		tokens := make([]int32, len(p.IDs), len(p.IDs)+s.lim.maxNew+1)
		copy(tokens, p.IDs)
		seq := &sequence{
			item: it, slot: slot, tokens: tokens, promptLen: len(p.IDs),
			chooser: it.sampler.NewSequence(it.job.Seed, p.ID, it.job.Repeat),
			view:    attnViewOf(it.sampler),
			stream:  s.tok.NewStream(),
			started: time.Now(),
		}
		if st, ok := s.tok.(ScoredStreamer); ok {
			seq.scored = st.NewScoredStream()
		}
		s.live[slot] = seq
	}
}
