package cpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Step appends each input's tokens to its slot, runs one batched forward, and fills
// one Output per input. A failed or cancelled step leaves every slot as it was.
func (e *Engine) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	if out == nil {
		return errors.New("cpu engine: step: nil output slice")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("cpu engine: step after Close")
	}
	rows, err := e.plan(in)
	if err != nil {
		return fmt.Errorf("cpu engine: step: %w", err)
	}
	if err := e.beginPrompt(in); err != nil {
		return err
	}
	if err := e.checkScores(in); err != nil {
		return err
	}
	e.grow(len(rows), len(in))
	if len(rows) > 0 {
		if err := e.forward(ctx, rows, len(in)); err != nil {
			return err
		}
	}
	for _, inp := range in {
		start := e.cache.lens[inp.Slot]
		e.cache.lens[inp.Slot] += len(inp.Tokens)
		e.storeBlocks(inp, start)
		e.share.fed(inp.Slot, start, inp.Tokens)
	}
	if err := e.fillOutputs(in, out); err != nil {
		return err
	}
	e.fillScores(in, *out)
	return e.finishPrompt(in, rows, *out)
}

// plan validates the inputs and flattens them into token rows.
func (e *Engine) plan(in []engine.Input) ([]tokenRow, error) {
	clear(e.seen)
	for i, inp := range in {
		if inp.Slot < 0 || inp.Slot >= e.opts.Slots {
			return nil, fmt.Errorf("input %d: slot %d outside 0..%d", i, inp.Slot, e.opts.Slots-1)
		}
		if e.seen[inp.Slot] {
			return nil, fmt.Errorf("input %d: slot %d appears twice in one step", i, inp.Slot)
		}
		e.seen[inp.Slot] = true
		if len(inp.Tokens) == 0 {
			return nil, fmt.Errorf("input %d (slot %d): no tokens", i, inp.Slot)
		}
		if e.opts.PrefillChunk > 0 && len(inp.Tokens) > e.opts.PrefillChunk {
			return nil, fmt.Errorf("input %d (slot %d): %d tokens exceed the prefill chunk of %d; split the prompt",
				i, inp.Slot, len(inp.Tokens), e.opts.PrefillChunk)
		}
		have := e.cache.lens[inp.Slot]
		if have+len(inp.Tokens) > e.opts.MaxSeqLen {
			return nil, fmt.Errorf("input %d (slot %d): %d cached + %d new tokens overflow the cache of %d",
				i, inp.Slot, have, len(inp.Tokens), e.opts.MaxSeqLen)
		}
		if err := e.opts.AttnViewOf(inp).Fits(have + len(inp.Tokens)); err != nil {
			return nil, fmt.Errorf("input %d (slot %d): %w", i, inp.Slot, err)
		}
		for j, t := range inp.Tokens {
			if t < 0 || int(t) >= e.cfg.VocabSize {
				return nil, fmt.Errorf("input %d (slot %d): token %d at index %d outside the vocabulary 0..%d",
					i, inp.Slot, t, j, e.cfg.VocabSize-1)
			}
		}
	}
	rows := e.rows[:0]
	for i, inp := range in {
		start := e.cache.lens[inp.Slot]
		for j, t := range inp.Tokens {
			r := tokenRow{slot: inp.Slot, pos: start + j, token: t, output: -1}
			if j == len(inp.Tokens)-1 {
				r.output = i
			}
			rows = append(rows, r)
		}
	}
	e.rows = rows
	return rows, nil
}

// grow sizes the step buffers for n token rows and nOut inputs, reallocating only
// when a step is larger than any before.
func (e *Engine) grow(n, nOut int) {
	c := &e.cfg
	b := &e.buf
	hid, qDim, kvDim := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	b.x = growTo(b.x, n*hid)
	b.xn = growTo(b.xn, n*hid)
	b.q = growTo(b.q, n*qDim)
	b.k = growTo(b.k, n*kvDim)
	b.v = growTo(b.v, n*kvDim)
	b.att = growTo(b.att, n*qDim)
	b.gate = growTo(b.gate, n*c.Intermediate)
	b.up = growTo(b.up, n*c.Intermediate)
	b.last = growTo(b.last, nOut*hid)
	b.logits = growTo(b.logits, nOut*c.VocabSize)
	for len(e.attnScores) < nOut {
		e.attnScores = append(e.attnScores, make([]float32, c.Heads*e.opts.MaxSeqLen))
	}
}

// growTo is b resized to n, reallocated (zeroed) only when its capacity is short.
func growTo[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// fillOutputs summarises each input's logits and metric-layer scores, reusing the
// Outputs' buffers.
func (e *Engine) fillOutputs(in []engine.Input, out *[]engine.Output) error {
	o := *out
	if cap(o) < len(in) {
		o = append(o[:cap(o)], make([]engine.Output, len(in)-cap(o))...)
	}
	o = o[:len(in)]
	*out = o
	heads, vocab := e.cfg.Heads, e.cfg.VocabSize
	// One task per sequence: each summary reads only its own row, so running them
	// in parallel changes no number (the full-vocabulary pass is ~1 ms at 128k).
	errs := make([]error, len(in))
	e.pool.forEach(e.threads, len(in), func(_, i int) {
		inp := in[i]
		o[i].Slot = inp.Slot
		metrics.FillDistNeed(&o[i].Dist, e.buf.logits[i*vocab:(i+1)*vocab], e.opts.TopK, inp.Need)
		kvLen := e.cache.lens[inp.Slot]
		if err := o[i].Attn.ComputeView(e.attnScores[i][:heads*kvLen], heads, kvLen, e.opts.AttnViewOf(inp)); err != nil {
			errs[i] = fmt.Errorf("cpu engine: slot %d: %w", inp.Slot, err)
		}
	})
	return errors.Join(errs...)
}
