package sampler

import (
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// The tail: tokens outside a Dist's candidate list, known only through their count,
// their total temperature-1 mass and an upper bound on their logits.

// tailBounds bounds Σ_tail exp((l − l_0)/T) over the tokens outside the candidates,
// knowing only their count n, their T = 1 mass S and that none exceeds the last
// candidate's logit (x ≤ x_min, relative to l_0). For a = 1/T: with a > 1,
// n·(S/n)^a ≤ Σ x^a ≤ S·x_min^(a−1); with a < 1 the two bounds swap (power means).
func (t *truncator) tailBounds() (lo, hi float64) {
	d := t.d
	n := d.VocabSize - d.Len()
	if n <= 0 {
		return 0, 0
	}
	c := d.Sorted(d.Len())
	l0 := float64(c[0].Logit)
	lnXmin := float64(c[len(c)-1].Logit) - l0
	if math.IsInf(lnXmin, -1) {
		return 0, 0 // every tail logit is −inf too
	}
	// TailMass is 1 − Σ candidates, so it carries the rounding of that sum (about
	// one ulp per candidate at worst); widen both bounds by that much rather than
	// trust a tiny or zero difference.
	slack := float64(len(c)+1) * 0x1p-52
	lnZ1 := d.LogPartition - l0
	lnS := math.Log(max(d.TailMass-slack, 0)) + lnZ1
	lnShi := math.Log(d.TailMass+slack) + lnZ1
	lnShi = math.Min(lnShi, math.Log(float64(n))+lnXmin)
	a := t.invT
	lnN := math.Log(float64(n))
	powerMean := func(ls float64) float64 { return lnN + a*(ls-lnN) }
	slope := func(ls float64) float64 { return ls + (a-1)*lnXmin }
	var lnLo, lnHi float64
	switch {
	case a == 1:
		lnLo, lnHi = lnS, lnShi
	case a > 1:
		lnLo, lnHi = powerMean(lnS), slope(lnShi)
	default:
		lnLo, lnHi = slope(lnS), powerMean(lnShi)
	}
	lnHi = math.Min(lnHi, lnN+a*lnXmin)
	return math.Exp(math.Min(lnLo, lnHi)), math.Exp(lnHi)
}

// hasTail reports whether tokens outside the candidates can have nonzero
// probability: the list is shorter than the vocabulary and does not already end in
// −inf (below which nothing ranks).
func hasTail(d *metrics.Dist) bool {
	if !d.Truncated() {
		return false
	}
	c := d.Sorted(d.Len())
	return !math.IsInf(float64(c[len(c)-1].Logit), -1)
}

// temperedTail bounds from above the tempered probability mass outside the
// candidates. It is exact at T = 1. Otherwise, when the tail decided nothing
// (!needed), the candidates' normaliser is taken from the weights computed so far, a
// lower bound that keeps the hot path from exponentiating every candidate just to
// report a number; when the tail could matter the whole list is summed.
func (t *truncator) temperedTail(needed bool) float64 {
	d := t.d
	if !hasTail(d) {
		return 0
	}
	if t.invT == 1 {
		return d.TailMass
	}
	_, hi := t.tailBounds()
	n := t.done
	if needed {
		n = d.Len()
	}
	all := t.sum(0, max(n, 1))
	return hi / (all + hi)
}
