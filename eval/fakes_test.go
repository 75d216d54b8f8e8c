package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Test doubles for the runner's collaborators. The fake engine's distribution is a
// pure function of the tokens in a slot, so a correct scheduler gives the same
// results whatever the batch size, chunking, worker count or order.

const (
	fakeVocab = 260
	fakeEOS   = 256
)

type fakeEngine struct {
	opts engine.Options
	seqs [][]int32
	// failAfter makes Step fail once this many steps ran (0: never); steps counts them.
	failAfter int64
	steps     *atomic.Int64
	// onStep runs before each step (tests cancel contexts from it).
	onStep func(n int64)
	// onInputs sees each step's inputs.
	onInputs func(in []engine.Input)
}

func newFakeEngine(slots, chunk int) *fakeEngine {
	return &fakeEngine{
		opts:  engine.Options{Slots: slots, MaxSeqLen: 4096, PrefillChunk: chunk},
		seqs:  make([][]int32, slots),
		steps: &atomic.Int64{},
	}
}

func (e *fakeEngine) Options() engine.Options { return e.opts }

func (e *fakeEngine) Free(slot int) { e.seqs[slot] = e.seqs[slot][:0] }

func (e *fakeEngine) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	n := e.steps.Add(1)
	if e.onStep != nil {
		e.onStep(n)
	}
	if e.onInputs != nil {
		e.onInputs(in)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.failAfter > 0 && n > e.failAfter {
		return fmt.Errorf("fake device lost")
	}
	if cap(*out) < len(in) {
		*out = make([]engine.Output, len(in))
	}
	*out = (*out)[:len(in)]
	for i, x := range in {
		if x.Slot < 0 || x.Slot >= len(e.seqs) || len(x.Tokens) == 0 {
			return fmt.Errorf("bad input %d: slot %d, %d tokens", i, x.Slot, len(x.Tokens))
		}
		if e.opts.PrefillChunk > 0 && len(x.Tokens) > e.opts.PrefillChunk {
			return fmt.Errorf("input %d: %d tokens exceed the chunk %d", i, len(x.Tokens), e.opts.PrefillChunk)
		}
		e.seqs[x.Slot] = append(e.seqs[x.Slot], x.Tokens...)
		o := &(*out)[i]
		o.Slot = x.Slot
		fakeDist(&o.Dist, e.seqs[x.Slot])
		o.Attn.Entropy = float64(len(e.seqs[x.Slot]) % 7)
		o.Attn.Varentropy = 0.5
	}
	return nil
}

// fakeDist derives logits from a hash of the whole sequence; EOS grows likelier with
// length so generations end at varied points.
func fakeDist(d *engine.Dist, seq []int32) {
	h := fnv.New64a()
	for _, t := range seq {
		fmt.Fprintf(h, "%d,", t)
	}
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	logits := make([]float32, fakeVocab)
	for i := range logits {
		logits[i] = float32(r.NormFloat64())
	}
	// Favour lower-case letters and spaces so text looks like words and can hit stops.
	for c := 'a'; c <= 'z'; c++ {
		logits[c] += 2.5
	}
	logits[' '] += 3
	logits['Q'] += 1.5
	logits[':'] += 1.5
	logits[fakeEOS] += float32(len(seq)%40) / 8
	metrics.FillDist(d, logits, 8)
}

type fakeTokenizer struct{}

func (fakeTokenizer) Encode(text string) ([]int32, error) {
	ids := []int32{1} // a BOS, as real tokenizers add
	for _, b := range []byte(text) {
		ids = append(ids, int32(b))
	}
	return ids, nil
}

func (fakeTokenizer) NewStream() TextStream { return &fakeStream{} }

type fakeStream struct{}

func (*fakeStream) Next(id int32) (string, error) {
	if id < 256 {
		return string(rune(id)), nil
	}
	return "", nil
}

func (*fakeStream) Flush() (string, error) { return "", nil }

// fakeSampler draws among the top candidates with an RNG derived from the item only.
type fakeSampler struct{ name string }

func (s fakeSampler) Describe() string { return s.name + "(fake)" }

func (s fakeSampler) NewSequence(seed uint64, problemID string, repeat int) TokenChooser {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d|%s|%d", s.name, seed, problemID, repeat)
	return &fakeChooser{greedy: s.name == "greedy", r: rand.New(rand.NewPCG(h.Sum64(), 1))}
}

type fakeChooser struct {
	greedy bool
	r      *rand.Rand
}

func (c *fakeChooser) Choose(d *engine.Dist, _ *engine.AttnStats, history []int32, promptLen int) (sampler.Decision, error) {
	if promptLen <= 0 || len(history) < promptLen {
		return sampler.Decision{}, fmt.Errorf("history %d shorter than prompt %d", len(history), promptLen)
	}
	i := 0
	if !c.greedy {
		i = c.r.IntN(3)
	}
	cand := d.Candidates[i]
	return sampler.Decision{Token: cand.ID, Strategy: "fake", Temperature: 1, LogProb: d.LogProb(cand.Logit)}, nil
}

// fakeGrader calls a response correct when it contains the target.
type fakeGrader struct{}

func (fakeGrader) Grade(_ TaskSpec, ref Reference, responses []string) ([]Grade, error) {
	target := ref.Target
	out := make([]Grade, len(responses))
	for i, r := range responses {
		out[i] = scoredAll(strings.Contains(r, target), target, r)
	}
	return out, nil
}

// scoredAll is a grade with the GSM8K tasks' answers and scores, all equal to ok.
func scoredAll(ok bool, strict, flexible string) Grade {
	v := 0.0
	if ok {
		v = 1
	}
	return Grade{
		Answers: []reports.Answer{{Filter: "strict-match", Answer: strict}, {Filter: "flexible-extract", Answer: flexible}},
		Scores: []reports.Score{{Metric: "exact_match", Filter: "strict-match", Value: v}, {Metric: "numeric_match", Filter: "strict-match", Value: v},
			{Metric: "exact_match", Filter: "flexible-extract", Value: v}},
	}
}

// jsonArrow stands in for the Arrow writer: rows as JSON lines, latency dropped
// because it is the one wall-clock column.
type jsonArrow struct{}

func (jsonArrow) WriteResults(path string, rows []reports.ResultRow, _ reports.Provenance) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			r.LatencyMS = 0
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
}

func (jsonArrow) WriteTraces(path string, rows []reports.TraceRow, _ reports.Provenance) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			// Spelled out: TraceRow embeds TokenRecord, whose positional
			// MarshalJSON would otherwise drop the row's keys.
			row := struct {
				RunID                   string
				Task                    string
				ProblemID, Repeat, Step int32
				Token                   reports.TokenRecord
			}{r.RunID, r.Task, r.ProblemID, r.Repeat, r.Step, r.TokenRecord}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
		return nil
	})
}
