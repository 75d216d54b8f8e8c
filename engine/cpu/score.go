package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Token scoring (engine.Input.Score, lm-eval's loglikelihood): the log-probability
// of given tokens at given positions. Only the positions named are run through the
// final norm and the LM head, in blocks of scoreHeadRows rows, so a 600-token
// prefill with one scored position costs one extra head row, not 600. Each row's
// numbers come from that row alone (the head matmul is batch-invariant and the
// log-partition runs in a fixed order over the row), so scores are bit-identical
// however the sequence was batched, chunked or taken from the prefix cache.

// scoreHeadRows is how many rows one LM-head block computes (the logits buffer
// holds scoreHeadRows × vocab floats).
const scoreHeadRows = 32

// scoreState is the scoring work of the current step, only touched inside Step.
type scoreState struct {
	any bool
	in  []engine.Input // the step's inputs, between checkScores and fillScores
	// rows[r] is the scored-row index of token row r, or -1 for a row nobody scores.
	rows []int
	// hits are the step's targets in input order; byRow[k] the hits of scored row k.
	hits  []scoreHit
	byRow [][]int
	// logZ and argmax of each scored row.
	logZ           []float64
	argmax         []int32
	logits, hidden []float32
	exps           [][]float64 // per worker
}

// scoreHit is one target: its scored row, its token, and the logit found there.
type scoreHit struct {
	row   int
	token int32
	logit float32
}

// ScoresTokens implements engine.TokenScorer.
func (e *Engine) ScoresTokens() bool { return true }

var _ engine.TokenScorer = (*Engine)(nil)

// checkScores validates the inputs' score targets before anything runs.
func (e *Engine) checkScores(in []engine.Input) error {
	e.score.any, e.score.in = false, in
	for i, inp := range in {
		for j, s := range inp.Score {
			if s.At < 0 || s.At >= len(inp.Tokens) {
				return fmt.Errorf("cpu engine: step: input %d (slot %d): score target %d at position %d outside the input's %d tokens",
					i, inp.Slot, j, s.At, len(inp.Tokens))
			}
			if s.Token < 0 || int(s.Token) >= e.cfg.VocabSize {
				return fmt.Errorf("cpu engine: step: input %d (slot %d): score target %d: token %d outside the vocabulary 0..%d",
					i, inp.Slot, j, s.Token, e.cfg.VocabSize-1)
			}
			e.score.any = true
		}
	}
	return nil
}

// scoreRows runs the final norm and the LM head over every token row of x (the
// last layer's residual stream) that some input scores, and keeps each row's
// log-partition, argmax and targets' logits. The step's inputs' tokens are the
// rows in order.
func (e *Engine) scoreRows(x []float32) {
	s := &e.score
	hid, vocab := e.cfg.HiddenSize, e.cfg.VocabSize
	s.index(s.in)
	scored := len(s.byRow)
	s.logZ, s.argmax = growTo(s.logZ, scored), growTo(s.argmax, scored)
	s.hidden = growTo(s.hidden, scoreHeadRows*hid)
	s.logits = growTo(s.logits, scoreHeadRows*vocab)
	for len(s.exps) < e.threads {
		s.exps = append(s.exps, nil)
	}
	var block [scoreHeadRows]int // the scored-row index of each block entry
	nb := 0
	flush := func() {
		if nb == 0 {
			return
		}
		rmsnorm(s.hidden, s.hidden, e.w.norm, nb, float32(e.cfg.RMSNormEps))
		e.matmul(s.logits, s.hidden, nb, e.w.head, nil, false)
		e.pool.forEach(e.threads, nb, func(worker, k int) {
			s.exps[worker] = growTo(s.exps[worker], vocab)
			row := s.logits[k*vocab : (k+1)*vocab]
			idx := block[k]
			s.logZ[idx], _, _ = metrics.LogitStatsScratch(row, s.exps[worker])
			s.argmax[idx] = int32(metrics.Argmax(row))
			for _, h := range s.byRow[idx] {
				s.hits[h].logit = row[s.hits[h].token]
			}
		})
		nb = 0
	}
	for r, idx := range s.rows {
		if idx < 0 {
			continue
		}
		copy(s.hidden[nb*hid:(nb+1)*hid], x[r*hid:(r+1)*hid])
		block[nb] = idx
		nb++
		if nb == scoreHeadRows {
			flush()
		}
	}
	flush()
}

// index numbers the scored rows in row order and lists each one's targets.
func (s *scoreState) index(in []engine.Input) {
	n := 0
	for _, inp := range in {
		n += len(inp.Tokens)
	}
	s.rows = growTo(s.rows, n)
	for r := range s.rows {
		s.rows[r] = -1
	}
	base := 0
	for _, inp := range in {
		for _, t := range inp.Score {
			s.rows[base+t.At] = 0
		}
		base += len(inp.Tokens)
	}
	scored := 0
	for r, v := range s.rows {
		if v == 0 {
			s.rows[r] = scored
			scored++
		}
	}
	for len(s.byRow) < scored {
		s.byRow = append(s.byRow, nil)
	}
	s.byRow = s.byRow[:scored]
	for k := range s.byRow {
		s.byRow[k] = s.byRow[k][:0]
	}
	s.hits = s.hits[:0]
	base = 0
	for _, inp := range in {
		for _, t := range inp.Score {
			idx := s.rows[base+t.At]
			s.byRow[idx] = append(s.byRow[idx], len(s.hits))
			s.hits = append(s.hits, scoreHit{row: idx, token: t.Token})
		}
		base += len(inp.Tokens)
	}
}

// fillScores answers every input's score targets, in order.
func (e *Engine) fillScores(in []engine.Input, out []engine.Output) {
	s := &e.score
	s.in = nil
	h := 0
	for i, inp := range in {
		out[i].Scores = out[i].Scores[:0]
		if !s.any {
			continue
		}
		for range inp.Score {
			hit := s.hits[h]
			h++
			out[i].Scores = append(out[i].Scores, engine.TokenScore{
				LogProb: float64(hit.logit) - s.logZ[hit.row],
				Greedy:  s.argmax[hit.row] == hit.token,
			})
		}
	}
}
