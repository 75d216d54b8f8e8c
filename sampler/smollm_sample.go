package sampler

import (
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// smollmSample reproduces the support and probabilities of the SmolLM port's _sample
// (SinatrasC/entropix-smollm b48dc7a, entr_model_torch/sampler.py), which differs
// from the JAX original's: min_p IS applied — tokens with softmax(logits/T) below
// min_p·p_max are removed — and then the probabilities are recomputed as
// softmax(logits) over the survivors, from the UNTEMPERED logits: the temperature
// only decides which tokens survive. Top-k and the inverted top-p (the mass of the
// smaller kept tokens exceeding top_p removes a token) then run on those
// probabilities as in the original. With min_p = 0 no recomputation happens and it
// is the original's _sample. The draw itself stays exact (the port's p / Uniform
// race is biased toward the mode; it is not reproduced).
func (t *truncator) smollmSample(d *metrics.Dist, p Params) cut {
	if p.MinP <= 0 {
		return t.originalSample(d, p)
	}
	l0 := float64(d.Candidates[0].Logit)
	// Min-p at T on the full vocabulary: a prefix of the sorted list (the tail
	// weighs at most the last candidate, so it can only survive if all of them do).
	nS := 0
	for nS < d.Len() && math.Exp((float64(d.Sorted(nS + 1)[nS].Logit)-l0)/p.Temperature) >= p.MinP {
		nS++
	}
	nS = max(nS, 1)
	tailOpen := nS == d.Len() && hasTail(d)

	t.reset(d, 1) // from here on, weights are the untempered exp(l − l0)
	k := min(max(p.TopK, 1), nS)
	tailCut := false
	if p.TopK > nS && tailOpen {
		tailCut = true // the top-k could reach survivors outside the candidates
	}
	// The survivors' normaliser: exact over the candidates; an open tail adds between
	// nothing and its whole temperature-1 mass.
	zS := t.sum(0, nS)
	tailHi := 0.0
	if tailOpen {
		tailHi = d.TailMass * math.Exp(d.LogPartition-l0)
	}
	start := t.invertedTopP(k, p.TopP*(zS+tailHi))
	startLo := t.invertedTopP(k, p.TopP*zS)
	return t.closeCut(d, start, k, tailCut || startLo != start)
}
