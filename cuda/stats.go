package cuda

import (
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// finishAttnStats completes a's exported fields from what attn_head_stats and
// attn_agreement return for one row — each head's entropy, then agreement and
// interaction strength — with the same
// across-head mean and variances as metrics.AttnStats.Compute, for a row of kvLen
// keys computed in view v.
func finishAttnStats(a *metrics.AttnStats, raw []float64, heads, kvLen int, v metrics.AttnView) {
	a.SetHeadEntropies(raw[:heads])
	a.Agreement = raw[heads]
	a.InteractionStrength = raw[heads+1]
	a.Slots, a.View = kvLen, metrics.AttnView{Mode: v.Mode}
	if v.Mode == metrics.Padded {
		a.Slots, a.View.PadLen = v.PadLen, v.PadLen
	}
}

// finishDist fills d's statistics from the device's numbers for one row; its
// Candidates (sorted best first) are already set.
func finishDist(d *metrics.Dist, vocab int, logZ, entropy, varentropy float64) {
	d.SetStats(vocab, logZ, entropy, varentropy)
}

// setCandidates copies one row of the device top-K (ids and logits, best first) into
// d's reused candidate buffer.
func setCandidates(d *metrics.Dist, vals []float32, ids []int32) {
	d.Candidates = d.Candidates[:0]
	for i, v := range vals {
		d.Candidates = append(d.Candidates, metrics.Candidate{ID: ids[i], Logit: v})
	}
}
