package cpu

import (
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Prompt-averaged metrics (engine.Input.PromptStats): the SmolLM port chooses its
// first token on calculate_metrics over the whole prefill. That needs, besides the
// usual last-position outputs, the full-vocabulary logits of every prompt position
// (an LM head over every row of the flagged inputs) and the metric layer's scores of
// every prompt query over every prompt key, future keys included. Chunked prompts
// cannot see their future keys when a chunk runs, so each flagged slot keeps its
// metric-layer queries, and the attention part is recomputed over all positions so
// far at every flagged step. Logits entropies are added in position order and the
// attention rows are summed in position order too, so the result is bit-identical
// however the prompt was chunked.

// promptHeadRows is how many rows one LM-head block computes (the logits buffer
// holds promptHeadRows × vocab floats).
const promptHeadRows = 32

// promptState is the engine's prompt-metrics state; all of it is only touched
// inside Step, under the engine's lock.
type promptState struct {
	slots []*promptSlot // by slot; nil when the slot is not accumulating
	want  []bool        // by slot: flagged in the current step
	any   bool          // some input of the current step is flagged

	ent, vent      []float64 // per token row of the current step (flagged rows only)
	hidden, logits []float32 // one LM-head block
	rows           []metrics.PositionAttn
	workers        []promptWorker
}

// promptSlot is one sequence's accumulation since position 0.
type promptSlot struct {
	sums metrics.PromptSums
	q    []float32 // metric-layer rotated queries, position × heads·head_dim
}

type promptWorker struct {
	exps   []float64 // one logits row's exponentials
	scores []float32 // heads × positions
	attn   metrics.AttnStats
	err    error
}

// beginPrompt checks the flagged inputs of a step before anything runs, and starts
// the state of those that begin a sequence. It changes nothing else, so a step that
// fails afterwards can be retried.
func (e *Engine) beginPrompt(in []engine.Input) error {
	p := &e.prompt
	if len(p.slots) < e.opts.Slots {
		p.slots = make([]*promptSlot, e.opts.Slots)
		p.want = make([]bool, e.opts.Slots)
	}
	clear(p.want)
	p.any = false
	for i, inp := range in {
		if !inp.PromptStats {
			continue
		}
		have := e.cache.lens[inp.Slot]
		st := p.slots[inp.Slot]
		switch {
		case have == 0:
			if st == nil {
				st = &promptSlot{}
				p.slots[inp.Slot] = st
			}
			st.sums = metrics.PromptSums{}
		case st == nil || st.sums.Positions != have:
			return fmt.Errorf("cpu engine: step: input %d (slot %d): prompt-averaged metrics need every prompt position, "+
				"but the slot holds %d tokens not fed with PromptStats (a prefix taken from a cache?); feed the whole prompt with it",
				i, inp.Slot, have)
		}
		p.want[inp.Slot] = true
		p.any = true
	}
	return nil
}

// drop forgets a slot's accumulation (the slot was freed).
func (p *promptState) drop(slot int) {
	if slot < len(p.slots) {
		p.slots[slot] = nil
	}
}

// capturePromptQueries keeps the metric layer's rotated queries of flagged rows.
func (e *Engine) capturePromptQueries(rows []tokenRow, q []float32) {
	p := &e.prompt
	qDim := e.cfg.Heads * e.cfg.HeadDim
	for r, row := range rows {
		if !p.want[row.slot] {
			continue
		}
		st := p.slots[row.slot]
		if need := (row.pos + 1) * qDim; len(st.q) < need {
			st.q = append(st.q, make([]float32, need-len(st.q))...)
		}
		copy(st.q[row.pos*qDim:(row.pos+1)*qDim], q[r*qDim:(r+1)*qDim])
	}
}

// promptLogitStats runs the final norm and the LM head over every flagged row of x
// (the last layer's residual stream) and keeps each row's entropy and varentropy.
func (e *Engine) promptLogitStats(rows []tokenRow, x []float32) {
	p := &e.prompt
	hid, vocab := e.cfg.HiddenSize, e.cfg.VocabSize
	p.ent, p.vent = growTo(p.ent, len(rows)), growTo(p.vent, len(rows))
	p.hidden = growTo(p.hidden, promptHeadRows*hid)
	for len(p.workers) < e.threads {
		p.workers = append(p.workers, promptWorker{})
	}
	var block [promptHeadRows]int // the row index of each block entry
	nb := 0
	flush := func() {
		if nb == 0 {
			return
		}
		rmsnorm(p.hidden, p.hidden, e.w.norm, nb, float32(e.cfg.RMSNormEps))
		p.logits = growTo(p.logits, nb*vocab)
		e.matmul(p.logits, p.hidden, nb, e.w.head, nil, false)
		e.pool.forEach(e.threads, nb, func(worker, k int) {
			w := &p.workers[worker]
			w.exps = growTo(w.exps, vocab)
			_, h, v := metrics.LogitStatsScratch(p.logits[k*vocab:(k+1)*vocab], w.exps)
			p.ent[block[k]], p.vent[block[k]] = h, v
		})
		nb = 0
	}
	for r, row := range rows {
		if !p.want[row.slot] {
			continue
		}
		copy(p.hidden[nb*hid:(nb+1)*hid], x[r*hid:(r+1)*hid])
		block[nb] = r
		nb++
		if nb == promptHeadRows {
			flush()
		}
	}
	flush()
}

// finishPrompt fills every Output's Prompt once the step has committed: the logits
// sums take the step's flagged rows in position order, and the attention part is
// computed over all of the slot's positions. Slots fed without the flag drop
// their state.
func (e *Engine) finishPrompt(in []engine.Input, rows []tokenRow, out []engine.Output) error {
	p := &e.prompt
	for i, inp := range in {
		out[i].Prompt = engine.PromptStats{}
		if !inp.PromptStats {
			p.drop(inp.Slot)
			continue
		}
		st := p.slots[inp.Slot]
		for r, row := range rows {
			if row.slot == inp.Slot {
				st.sums.Add(p.ent[r], p.vent[r])
			}
		}
		n := e.cache.lens[inp.Slot]
		if st.sums.Positions != n {
			return fmt.Errorf("cpu engine: slot %d: prompt metrics over %d positions of %d", inp.Slot, st.sums.Positions, n)
		}
		if err := e.promptAttention(inp.Slot, st, n); err != nil {
			return fmt.Errorf("cpu engine: slot %d: %w", inp.Slot, err)
		}
		stats, err := st.sums.Stats(p.rows[:n])
		if err != nil {
			return fmt.Errorf("cpu engine: slot %d: %w", inp.Slot, err)
		}
		out[i].Prompt = stats
	}
	return nil
}

// promptAttention fills p.rows[:n] with each query position's statistics over all
// n keys of the metric layer, unmasked, as the port's pre_scores.
func (e *Engine) promptAttention(slot int, st *promptSlot, n int) error {
	p := &e.prompt
	c := &e.cfg
	heads, hd := c.Heads, c.HeadDim
	qDim, group := heads*hd, c.Heads/c.KVHeads
	scale := float32(1 / math.Sqrt(float64(hd)))
	keys := e.cache.k[e.opts.MetricLayer]
	if len(p.rows) < n {
		p.rows = make([]metrics.PositionAttn, n)
	}
	threads := min(e.threads, n)
	for len(p.workers) < threads {
		p.workers = append(p.workers, promptWorker{})
	}
	for k := range p.workers {
		p.workers[k].err = nil
	}
	e.pool.forEach(threads, n, func(worker, i int) {
		w := &p.workers[worker]
		w.scores = growTo(w.scores, heads*n)
		for h := 0; h < heads; h++ {
			qh := st.q[i*qDim+h*hd : i*qDim+(h+1)*hd]
			off := e.cache.at(slot, h/group, 0)
			s := w.scores[h*n : (h+1)*n]
			for j := range s {
				s[j] = dot(qh, keys[off+j*hd:off+(j+1)*hd]) * scale
			}
		}
		if err := w.attn.Compute(w.scores, heads, n, metrics.Masked, 0); err != nil {
			w.err = err
			return
		}
		p.rows[i] = w.attn.Position()
	})
	for _, w := range p.workers {
		if w.err != nil {
			return w.err
		}
	}
	return nil
}
