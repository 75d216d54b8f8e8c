package eval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
)

// scoredProblem is one doc of a scored task: the engine sequences its
// requests need, and how each request's result is put together from them.
type scoredProblem struct {
	entry ProblemEntry
	seqs  []*scoredSeq
	// parts[r] are request r's (sequence, target list) pairs: one, or one
	// per rolling window.
	parts [][]seqPart

	mu      sync.Mutex
	pending int // sequences not finished
	started time.Time
}

type seqPart struct{ seq, list int }

// scoredSeq is one engine sequence: Input, and target lists each scored at
// its tail (requests whose tokens are the same share one sequence: the
// choices of an MMLU question all end on the context's last token).
type scoredSeq struct {
	prob    *scoredProblem
	input   []int32
	targets [][]int32
	sums    []float64 // per target list: Σ log-probabilities
	greedy  []bool    // per target list: every token the argmax

	slot    int
	fed     int
	feeding bool
}

// buildScored turns a doc's requests into engine sequences of at most maxLen
// tokens, sharing one sequence among requests whose inputs are equal.
func buildScored(entry ProblemEntry, enc loglik.Encoder, maxLen int) (*scoredProblem, error) {
	d := entry.Scoring
	p := &scoredProblem{entry: entry, parts: make([][]seqPart, len(d.Requests))}
	byInput := map[string]int{}
	add := func(r int, s loglik.Sequence) {
		key := tokenKey(s.Input)
		i, ok := byInput[key]
		if !ok {
			i = len(p.seqs)
			byInput[key] = i
			p.seqs = append(p.seqs, &scoredSeq{prob: p, input: s.Input})
		}
		q := p.seqs[i]
		q.targets = append(q.targets, s.Targets)
		q.sums = append(q.sums, 0)
		q.greedy = append(q.greedy, true)
		p.parts[r] = append(p.parts[r], seqPart{i, len(q.targets) - 1})
	}
	for r, req := range d.Requests {
		var pairs []loglik.Pair
		if d.OutputType == loglik.Rolling {
			ids, err := enc.Encode(req.Continuation)
			if err != nil {
				return nil, fmt.Errorf("problem %s: tokenize: %w", entry.ID, err)
			}
			if pairs, err = loglik.RollingWindows(ids, enc.Prefix, maxLen); err != nil {
				return nil, fmt.Errorf("problem %s: %w", entry.ID, err)
			}
		} else {
			pair, err := enc.EncodePair(req)
			if err != nil {
				return nil, fmt.Errorf("problem %s: request %d: %w", entry.ID, r, err)
			}
			pairs = []loglik.Pair{pair}
		}
		for _, pair := range pairs {
			if len(pair.Continuation) == 0 {
				continue // lm-eval scores an empty continuation (0, True): nothing to run
			}
			s, err := pair.Window(maxLen)
			if err != nil {
				return nil, fmt.Errorf("problem %s: request %d: %w", entry.ID, r, err)
			}
			add(r, s)
		}
	}
	p.pending = len(p.seqs)
	return p, nil
}

func tokenKey(ids []int32) string {
	b := make([]byte, 4*len(ids))
	for i, t := range ids {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(t), byte(t>>8), byte(t>>16), byte(t>>24)
	}
	return string(b)
}

// tokens is the sequence's input length (the prompt tokens it asks for).
func (p *scoredProblem) tokens() int {
	n := 0
	for _, s := range p.seqs {
		n += len(s.input)
	}
	return n
}

// results sums each request's parts: lm-eval's (logprob, is_greedy), and for
// a rolling doc the windows' sum.
func (p *scoredProblem) results() []loglik.Result {
	out := make([]loglik.Result, len(p.parts))
	for r, parts := range p.parts {
		out[r].Greedy = true
		for _, pt := range parts {
			s := p.seqs[pt.seq]
			out[r].LogProb += s.sums[pt.list]
			out[r].Greedy = out[r].Greedy && s.greedy[pt.list]
		}
	}
	return out
}

// seqQueue hands sequences to the workers doc by doc, so a doc's sequences
// run together and reuse its context from the prefix cache.
type seqQueue struct {
	mu   sync.Mutex
	seqs []*scoredSeq
	next int
}

func (q *seqQueue) pop() (*scoredSeq, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next >= len(q.seqs) {
		return nil, false
	}
	s := q.seqs[q.next]
	q.next++
	return s, true
}

// scoredScheduler keeps every slot of one engine busy with scoring sequences:
// each step feeds one prefill chunk per live sequence, with the score targets
// that fall in it.
type scoredScheduler struct {
	worker   int
	eng      Engine
	prefix   engine.PrefixSharer
	queue    *seqQueue
	chunk    int
	finished func(*scoredProblem) error

	live  []*scoredSeq
	in    []engine.Input
	owner [][]int // per input: the target list of each of its score targets
	out   []engine.Output
	stats SchedulerStats
}

func newScoredScheduler(worker int, eng Engine, q *seqQueue, finished func(*scoredProblem) error) (*scoredScheduler, error) {
	opts := eng.Options()
	if opts.Slots < 1 {
		return nil, fmt.Errorf("worker %d: engine has %d slots", worker, opts.Slots)
	}
	if s, ok := eng.(engine.TokenScorer); !ok || !s.ScoresTokens() {
		return nil, fmt.Errorf("worker %d: this backend does not score given tokens (loglikelihood tasks); use backend cpu or cuda", worker)
	}
	chunk := opts.PrefillChunk
	if chunk <= 0 {
		chunk = 1 << 30
	}
	return &scoredScheduler{worker: worker, eng: eng, prefix: prefixSharerOf(eng, opts), queue: q, chunk: chunk,
		finished: finished, live: make([]*scoredSeq, opts.Slots)}, nil
}

func (s *scoredScheduler) schedulerStats() *SchedulerStats { return &s.stats }

func (s *scoredScheduler) run(ctx context.Context) (err error) {
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
		s.in, s.owner = s.in[:0], s.owner[:0]
		for _, q := range s.live {
			if q == nil {
				continue
			}
			if !q.feeding {
				if s.waitForSibling(q) {
					continue
				}
				if err := s.start(q); err != nil {
					return err
				}
			}
			s.feed(q)
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
		if err := s.afterStep(); err != nil {
			return err
		}
	}
}

// feed appends q's next chunk, with the targets its positions predict.
func (s *scoredScheduler) feed(q *scoredSeq) {
	n := min(len(q.input)-q.fed, s.chunk)
	var score []engine.ScoreTarget
	var owner []int
	for k, t := range q.targets {
		first := len(q.input) - len(t) // position predicting t[0]
		for i, tok := range t {
			if pos := first + i; pos >= q.fed && pos < q.fed+n {
				score = append(score, engine.ScoreTarget{At: pos - q.fed, Token: tok})
				owner = append(owner, k)
			}
		}
	}
	s.in = append(s.in, engine.Input{Slot: q.slot, Tokens: q.input[q.fed : q.fed+n], Score: score})
	s.owner = append(s.owner, owner)
}

func (s *scoredScheduler) afterStep() error {
	if len(s.out) != len(s.in) {
		return fmt.Errorf("worker %d: engine returned %d outputs for %d inputs", s.worker, len(s.out), len(s.in))
	}
	for i, in := range s.in {
		q := s.live[in.Slot]
		if len(s.out[i].Scores) != len(in.Score) {
			return fmt.Errorf("worker %d: engine returned %d scores for %d targets", s.worker, len(s.out[i].Scores), len(in.Score))
		}
		for j, sc := range s.out[i].Scores {
			k := s.owner[i][j]
			q.sums[k] += sc.LogProb
			q.greedy[k] = q.greedy[k] && sc.Greedy
		}
		q.fed += len(in.Tokens)
		if q.fed < len(q.input) {
			continue
		}
		s.eng.Free(in.Slot)
		s.live[in.Slot] = nil
		p := q.prob
		p.mu.Lock()
		p.pending--
		done := p.pending == 0
		p.mu.Unlock()
		if done {
			if err := s.finished(p); err != nil {
				return err
			}
			s.stats.Finished++
		}
	}
	return nil
}

// waitForSibling: another live sequence is still prefilling a longer common
// prefix than the prefix cache holds now, so q starts after it and reuses it
// (a question's choices, and every question's few-shot prefix).
func (s *scoredScheduler) waitForSibling(q *scoredSeq) bool {
	if s.prefix == nil {
		return false
	}
	longest := 0
	for _, o := range s.live {
		if o != nil && o != q && o.feeding && o.fed < len(o.input) {
			longest = max(longest, prefixcache.CommonPrefix(q.input, o.input))
		}
	}
	return longest-s.prefix.CachedPrefix(q.input) >= prefixMinGain
}

func (s *scoredScheduler) start(q *scoredSeq) error {
	q.feeding = true
	p := q.prob
	p.mu.Lock()
	if p.started.IsZero() {
		p.started = time.Now()
	}
	p.mu.Unlock()
	s.stats.PromptTokens += len(q.input)
	if s.prefix != nil {
		n, err := s.prefix.AttachPrefix(q.slot, q.input)
		if err != nil {
			return fmt.Errorf("worker %d: %w", s.worker, err)
		}
		q.fed = n
		if n > 0 {
			s.stats.PrefixHits++
		}
	}
	s.stats.PrefillComputed += len(q.input) - q.fed
	return nil
}

func (s *scoredScheduler) refill() {
	for slot := range s.live {
		if s.live[slot] != nil {
			continue
		}
		q, ok := s.queue.pop()
		if !ok {
			return
		}
		q.slot = slot
		s.live[slot] = q
	}
}
