package cuda

import (
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// finishAttnStats completes a's exported fields from what attn_stats returns for one
// row — each head's entropy, then agreement and interaction strength — with the same
// across-head mean and variances as metrics.AttnStats.Compute.
func finishAttnStats(a *metrics.AttnStats, raw []float64, heads, slots int) {
	if cap(a.HeadEntropy) < heads {
		a.HeadEntropy = make([]float64, heads)
	}
	a.HeadEntropy = a.HeadEntropy[:heads]
	copy(a.HeadEntropy, raw[:heads])
	var mean float64
	for _, e := range a.HeadEntropy {
		mean += e
	}
	mean /= float64(heads)
	var ss float64
	for _, e := range a.HeadEntropy {
		ss += (e - mean) * (e - mean)
	}
	a.Entropy = mean
	a.Varentropy = ss / float64(heads)
	a.VarentropyDDOF1 = math.NaN()
	if heads > 1 {
		a.VarentropyDDOF1 = ss / float64(heads-1)
	}
	a.Agreement = raw[heads]
	a.InteractionStrength = raw[heads+1]
	a.Slots = slots
}

// finishDist fills d's statistics from the device's numbers for one row; its
// Candidates (sorted best first) are already set. The tail mass follows FillDist.
func finishDist(d *metrics.Dist, vocab int, logZ, entropy, varentropy float64) {
	d.VocabSize = vocab
	d.LogPartition, d.Entropy, d.Varentropy = logZ, entropy, varentropy
	var kept float64
	for _, c := range d.Candidates {
		kept += math.Exp(float64(c.Logit) - logZ)
	}
	d.TailMass = math.Max(0, 1-kept)
	if len(d.Candidates) == vocab {
		d.TailMass = 0
	}
}

// setCandidates copies one row of the device top-K (ids and logits, best first) into
// d's reused candidate buffer.
func setCandidates(d *metrics.Dist, vals []float32, ids []int32) {
	d.Candidates = d.Candidates[:0]
	for i, v := range vals {
		d.Candidates = append(d.Candidates, metrics.Candidate{ID: ids[i], Logit: v})
	}
}
