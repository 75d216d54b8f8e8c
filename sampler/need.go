package sampler

import (
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Each sampler says how much of a step's sorted candidate list its draws read, so
// the engine sorts only that much (metrics.Need). The answer is a bound on what the
// filters walk, never an input to them: a draw that reads further sorts the rest in
// (metrics.Dist.Sorted) and decides exactly as with the whole list.

// A CandidateNeeder bounds what its draws read of each step's candidate list.
type CandidateNeeder interface {
	CandidateNeed() *metrics.Need
}

// minPReach widens a min-p threshold by a few ulps of slack: the weights it is
// tested on are rounded exponentials, and one that rounds up across the threshold
// should not cost a sort of the whole vocabulary.
const minPReach = 1 + 1e-9

// CandidateNeed is what the configured draw reads: greedy the best candidate, a
// top-k draw its k (both orders run top-k first), min-p (when nothing before it
// walks the list) those within T·ln(1/min_p) of the best. Nil, the whole list, for
// temperature and top-p draws, whose walks can reach any depth.
func (b *Baseline) CandidateNeed() *metrics.Need {
	p := b.params
	switch {
	case b.greedy():
		return &metrics.Need{Top: 1}
	case p.TopK > 0:
		return &metrics.Need{Top: p.TopK}
	case p.MinP > 0 && (b.order == OrderVLLMV1 || p.TopP >= 1):
		return &metrics.Need{Top: 1, Within: -p.Temperature * math.Log(p.MinP) * minPReach}
	}
	return nil
}

// CandidateNeed is the largest top-k any strategy can draw with (the base top_k,
// LEHV's widened one, the adaptive branch's cap); the argmax strategies read the
// best candidate and the clarifying insert looks its token up. The faithful draws
// normalise over the whole vocabulary: nil.
func (e *Entropix) CandidateNeed() *metrics.Need {
	c := &e.cfg
	if c.Faithful {
		return nil
	}
	lehv := int(math.Ceil(float64(c.TopK) * (1 + math.Abs(c.LEHVTopKAgreeCoef))))
	return &metrics.Need{Top: max(c.TopK, c.LEHVTopKFloor, lehv, c.AdaTopKMax)}
}
