package sampler

import (
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// originalSample reproduces the support of the original Entropix _sample (e55e9a3,
// identical in frog) with its quirks: probabilities over the whole vocabulary at T;
// min_p computed and never used (no effect); the top_k probabilities flipped to
// ascending order; a token removed when the mass of the SMALLER kept tokens exceeds
// top_p — top-p inverted, dropping the most likely tokens on flat distributions.
func (t *truncator) originalSample(d *metrics.Dist, p Params) cut {
	t.reset(d, p.Temperature)
	k := min(max(p.TopK, 1), d.VocabSize)
	tailCut := false
	if k > d.Len() {
		// The smallest top-k members lie in the tail and would add to every exclusive sum.
		k, tailCut = d.Len(), hasTail(d)
	}
	var start, startLo int
	if p.Temperature == 1 {
		z := math.Exp(d.LogPartition - float64(d.Candidates[0].Logit))
		start = t.invertedTopP(k, p.TopP*z)
		startLo = start
	} else {
		// The normaliser runs over the whole vocabulary, but the cut rarely needs it
		// exactly: bound it from the weights computed so far (the rest weigh at most
		// the last one computed) and widen the prefix until both bounds agree.
		tailLo, tailHi := t.tailBounds()
		for n := min(max(2*k, 64), d.Len()); ; n = min(2*n, d.Len()) {
			s := t.sum(0, n)
			rest := float64(d.Len()-n) * t.weight(n-1)
			startLo = t.invertedTopP(k, p.TopP*(s+tailLo))
			start = t.invertedTopP(k, p.TopP*(s+rest+tailHi))
			if startLo == start || n == d.Len() {
				break
			}
		}
	}
	return t.closeCut(d, start, k, tailCut || startLo != start)
}

// closeCut is the cut of candidates [start, end) with the −inf entries at its end
// dropped (one always stays) and its normaliser and tail mass filled in.
func (t *truncator) closeCut(d *metrics.Dist, start, end int, tailCut bool) cut {
	c := cut{start: start, end: end, tailCut: tailCut}
	cands := d.Sorted(end)
	for c.end > c.start+1 && math.IsInf(float64(cands[c.end-1].Logit), -1) {
		c.end--
	}
	c.z = t.sum(c.start, c.end)
	c.tailMass = t.temperedTail(c.tailCut)
	return c
}

// invertedTopP walks the top k in ascending order and returns the first kept index
// from the top: entries whose exclusive ascending sum exceeds the target are removed,
// and that sum only grows toward the top, so the removed ones form a prefix.
func (t *truncator) invertedTopP(k int, target float64) int {
	var cum float64
	for j := k - 1; j >= 0; j-- {
		if cum > target {
			return j + 1
		}
		cum += t.weight(j)
	}
	return 0
}
