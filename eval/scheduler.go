package eval

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// workQueue hands work items to the workers problem by problem (every job of one
// problem, then the next problem), so the samplers, seeds and repeats of a prompt run
// together and reuse its prefill. Workers pull from it, so a fast device takes more
// items; results do not depend on who took what, or in which order, because every
// sequence carries its own RNG stream and the result files are written in canonical
// order.
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

// SchedulerStats says where a worker's time went, for the outside-the-engine share,
// and how much prefill the prefix cache saved.
type SchedulerStats struct {
	// Device is the engine's own name for its device (a GPU's model), if it has one.
	Device    string
	Wall      time.Duration
	InEngine  time.Duration
	Steps     int
	Generated int
	Finished  int
	// PromptTokens are the prompt tokens of the sequences started; PrefillComputed
	// the ones the engine computed (the rest came from its prefix cache, in
	// PrefixHits sequences).
	PromptTokens    int
	PrefillComputed int
	PrefixHits      int
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

	// prefix is the engine's prefix cache; nil when it has none or it is off.
	prefix engine.PrefixSharer

	live  []*sequence // indexed by slot; nil is free
	in    []engine.Input
	out   []engine.Output
	stats SchedulerStats

	// ready are the inputs whose sequence takes a token this step, and choices
	// their tokens (chooseAll); threads is how many choose at once.
	ready   []int
	choices []choice
	threads int
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
	s := &scheduler{
		worker: worker, eng: eng, queue: q, tok: tok, lim: lim, chunk: chunk,
		finished: finished, progress: p,
		live: make([]*sequence, opts.Slots), threads: opts.Threads,
	}
	if s.threads <= 0 {
		s.threads = runtime.GOMAXPROCS(0)
	}
	s.prefix = prefixSharerOf(eng, opts)
	return s, nil
}

func (s *scheduler) schedulerStats() *SchedulerStats { return &s.stats }

// run steps until the queue is empty and every sequence finished, or ctx ends. A
// sequence that was live when it stops is simply not journaled: the resumed run
// starts it again from its prompt and, being deterministic, produces the same tokens.
func (s *scheduler) run(ctx context.Context) (err error) {
	start := time.Now()
	defer func() {
		s.stats.Wall = time.Since(start)
		freeLive(s.eng, s.live)
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
			if !seq.feeding {
				if s.waitForSibling(seq) {
					continue
				}
				if err := s.start(seq); err != nil {
					return err
				}
			}
			n := min(len(seq.tokens)-seq.fed, s.chunk)
			s.in = append(s.in, engine.Input{Slot: slot, Tokens: seq.tokens[seq.fed : seq.fed+n], Attn: seq.view, Need: seq.need,
				PromptStats: seq.promptStats && seq.fed < seq.promptLen})
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
	s.ready = s.ready[:0]
	for i := range s.in {
		seq := s.live[s.in[i].Slot]
		seq.fed += len(s.in[i].Tokens)
		if seq.fed >= len(seq.tokens) { // else mid-prefill: the output predicts a prompt token
			s.ready = append(s.ready, i)
		}
	}
	s.chooseAll()
	generated := 0
	for j, i := range s.ready {
		slot := s.in[i].Slot
		seq := s.live[slot]
		if err := s.choices[j].err; err != nil {
			return fmt.Errorf("worker %d: %w", s.worker, err)
		}
		if err := seq.apply(&s.out[i], s.choices[j], s.lim); err != nil {
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

// waitForSibling tells whether seq should wait a step: another sequence is still
// prefilling a longer common prefix than the engine holds now, so starting seq
// after it reuses that prefix instead of computing it twice. Only started
// sequences are waited for, and they are fed in this same step, so a step is never
// empty while sequences wait.
func (s *scheduler) waitForSibling(seq *sequence) bool {
	if s.prefix == nil || seq.promptStats {
		return false
	}
	prompt := seq.tokens[:seq.promptLen]
	longest := 0
	for _, o := range s.live {
		if o != nil && o != seq && o.feeding && o.fed < o.promptLen && !o.promptStats {
			longest = max(longest, prefixcache.CommonPrefix(prompt, o.tokens[:o.promptLen]))
		}
	}
	return longest-s.prefix.CachedPrefix(prompt) >= prefixMinGain
}

// prefixMinGain is the shortest saving worth waiting a step for (one block of the
// CPU engine's cache).
const prefixMinGain = 16

// start begins feeding seq, first taking the longest prefix of its prompt the
// engine's prefix cache holds. A sequence whose sampler reads the prompt-averaged
// metrics bypasses the cache (and so neither takes nor stores blocks): those
// metrics need every prompt position's logits and queries, which the cache does
// not keep, and the engine refuses a flagged prompt it did not see whole.
func (s *scheduler) start(seq *sequence) error {
	seq.feeding = true
	s.stats.PromptTokens += seq.promptLen
	if s.prefix != nil && !seq.promptStats {
		n, err := s.prefix.AttachPrefix(seq.slot, seq.tokens[:seq.promptLen])
		if err != nil {
			return fmt.Errorf("worker %d: %w", s.worker, err)
		}
		seq.fed = n
		if n > 0 {
			s.stats.PrefixHits++
		}
	}
	s.stats.PrefillComputed += seq.promptLen - seq.fed
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
			need:    candidateNeedOf(it.sampler),
			stream:  s.tok.NewStream(),
			started: time.Now(),
		}
		seq.promptStats = wantsPromptStats(it.sampler) && !s.lim.firstArgmax
		if st, ok := s.tok.(ScoredStreamer); ok {
			seq.scored = st.NewScoredStream()
		}
		s.live[slot] = seq
	}
}
