package cpu

import (
	"context"
	"fmt"
	"math"
)

// tokenRow is one token of a step: where it goes in the cache, and which output
// (input index) it ends, or -1 when it is not the last token of its input.
type tokenRow struct {
	slot, pos int
	token     int32
	output    int
}

// forward runs the decoder over all rows of a step (every input's tokens, flattened)
// and leaves each input's next-token logits in b.logits and the metric layer's
// last-position scores in e.attnScores. It is HF's LlamaForCausalLM /
// Qwen2ForCausalLM with eager attention, in float32.
func (e *Engine) forward(ctx context.Context, rows []tokenRow, nOut int) error {
	c, w, b := &e.cfg, e.w, &e.buf
	n := len(rows)
	hid, qDim, kvDim, inter := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim, c.Intermediate
	eps := float32(c.RMSNormEps)

	for r, row := range rows {
		copy(b.x[r*hid:(r+1)*hid], w.embed.row(int(row.token), b.x[r*hid:(r+1)*hid]))
	}
	for l := range w.layers {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cpu engine: step cancelled at layer %d: %w", l, err)
		}
		L := &w.layers[l]
		// Attention block: x += o_proj(attn(rope(q), rope(k), v)).
		e.rowsOf(n, func(lo, hi int) { rmsnorm(b.xn[lo*hid:], b.x[lo*hid:], L.attnNorm, hi-lo, eps) })
		e.matmuls(b.xn, n, matmulJob{b.q, L.wq, L.bq, false}, matmulJob{b.k, L.wk, L.bk, false}, matmulJob{b.v, L.wv, L.bv, false})
		e.rowsOf(n, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := rows[r]
				e.rope.rotate(b.q[r*qDim:(r+1)*qDim], c.Heads, row.pos)
				e.rope.rotate(b.k[r*kvDim:(r+1)*kvDim], c.KVHeads, row.pos)
				e.cache.store(l, row.slot, row.pos, b.k[r*kvDim:(r+1)*kvDim], b.v[r*kvDim:(r+1)*kvDim])
			}
		})
		if e.prompt.any && l == e.opts.MetricLayer {
			e.capturePromptQueries(rows, b.q)
		}
		e.attention(l, rows, b.q, b.att, l == e.opts.MetricLayer)
		e.matmul(b.x, b.att, n, L.wo, L.bo, true)
		// MLP block: x += down(silu(gate(n)) · up(n)).
		e.rowsOf(n, func(lo, hi int) { rmsnorm(b.xn[lo*hid:], b.x[lo*hid:], L.mlpNorm, hi-lo, eps) })
		e.matmuls(b.xn, n, matmulJob{b.gate, L.wg, nil, false}, matmulJob{b.up, L.wu, nil, false})
		e.rowsOf(n, func(lo, hi int) { swiglu(b.gate[lo*inter:hi*inter], b.up[lo*inter:hi*inter]) })
		e.matmul(b.x, b.gate, n, L.wd, nil, true)
	}
	if e.prompt.any { // inputs asking for prompt-averaged metrics need every row's
		e.promptLogitStats(rows, b.x)
	}
	if e.score.any { // inputs scoring given tokens need those rows' logits
		e.scoreRows(b.x)
	}
	// Only each input's last position needs logits.
	for r, row := range rows {
		if row.output >= 0 {
			copy(b.last[row.output*hid:(row.output+1)*hid], b.x[r*hid:(r+1)*hid])
		}
	}
	rmsnorm(b.last, b.last, w.norm, nOut, eps)
	e.matmul(b.logits, b.last, nOut, w.head, nil, false)
	return nil
}

// rowsOf runs fn over the step's rows [0, n) in blocks, on the worker pool when
// there are enough of them (a prefill chunk) to pay for a parallel section: the
// norms, RoPE and SiLU left on one thread were about a tenth of a 512-token
// prefill's wall time while the other core waited. Every row's values are
// computed the same way wherever it runs.
func (e *Engine) rowsOf(n int, fn func(lo, hi int)) {
	threads := e.threads
	if n < 16 {
		threads = 1
	}
	e.pool.blocksOf(threads, n, func(_, lo, hi int) { fn(lo, hi) })
}

// rmsnorm sets out = weight · x / √(mean(x²) + eps) for each of n rows (in place
// is fine). The mean runs in float64 over the row alone.
func rmsnorm(out, x, weight []float32, n int, eps float32) {
	d := len(weight)
	for r := 0; r < n; r++ {
		xr, or := x[r*d:(r+1)*d], out[r*d:(r+1)*d]
		var ss float64
		for _, v := range xr {
			ss += float64(v) * float64(v)
		}
		inv := float32(1 / math.Sqrt(float64(float32(ss/float64(d))+eps)))
		for i, v := range xr {
			or[i] = weight[i] * (v * inv)
		}
	}
}
