package metrics

import (
	"fmt"
	"math"
)

// AttnMode says which key slots enter the attention statistics.
type AttnMode int

const (
	// Masked uses only the real (causally visible) positions.
	Masked AttnMode = iota
	// Padded behaves like the original Entropix cache: it has PadLen slots and the
	// empty ones score exactly 0 and take part in the softmax and every mean.
	Padded
)

func (m AttnMode) String() string {
	if m == Padded {
		return "padded"
	}
	return "masked"
}

// ParseAttnMode accepts "masked" and "padded" ("faithful" is the goldens' name for padded).
func ParseAttnMode(s string) (AttnMode, error) {
	switch s {
	case "masked", "":
		return Masked, nil
	case "padded", "faithful":
		return Padded, nil
	}
	return Masked, fmt.Errorf("attention mode %q: want masked or padded", s)
}

// AttnView is the set of key slots one sampler's attention statistics run over:
// the real positions (Masked), or a fixed cache of PadLen slots whose empty ones
// score 0 (Padded), as the upstream Entropix code computes them over its KV cache
// (4096 slots for the JAX original and frog, 2048 for the SmolLM port). Every
// Entropix variant names its view; one engine step serves each input in its own.
type AttnView struct {
	Mode   AttnMode
	PadLen int
}

// String is "masked" or "padded:<slots>".
func (v AttnView) String() string {
	if v.Mode == Padded {
		return fmt.Sprintf("padded:%d", v.PadLen)
	}
	return "masked"
}

// Check reports a view no statistics can be computed in, naming the field.
func (v AttnView) Check() error {
	switch v.Mode {
	case Masked:
		return nil
	case Padded:
		if v.PadLen < 1 {
			return fmt.Errorf("pad_len %d: a padded view needs at least one slot", v.PadLen)
		}
		return nil
	}
	return fmt.Errorf("attention mode %d: want masked or padded", v.Mode)
}

// Fits reports whether a sequence of kvLen keys fits the view (a padded cache
// cannot hold more keys than it has slots), after Check.
func (v AttnView) Fits(kvLen int) error {
	if err := v.Check(); err != nil {
		return err
	}
	if v.Mode == Padded && kvLen > v.PadLen {
		return fmt.Errorf("attention view %s: %d keys exceed the padded cache; raise pad_len or lower max_seq_len", v, kvLen)
	}
	return nil
}

// probClip is the clip inside the log of the attention entropy; it is part of the
// reference definition (it changes results where probabilities fall below 1e-10).
const probClip = 1e-10

// AttnStats are the metric layer's attention statistics at the last query position.
type AttnStats struct {
	// HeadEntropy is each head's softmax entropy over the mode's slots, in bits.
	HeadEntropy []float64
	// Entropy is the mean of HeadEntropy.
	Entropy float64
	// Varentropy is the population variance (ddof 0) of HeadEntropy across heads,
	// as the JAX original computes it.
	Varentropy float64
	// VarentropyDDOF1 is the sample variance (ddof 1, the SmolLM port); NaN for one head.
	VarentropyDDOF1 float64
	// Agreement is the mean over heads and slots of |P_ij − mean_heads P_j|.
	Agreement float64
	// InteractionStrength is the mean over heads and slots of |score_ij|.
	InteractionStrength float64
	// Slots is the number of key slots the statistics ran over.
	Slots int
	// View is the view they were computed in (samplers check it is theirs).
	View AttnView

	probs []float64 // scratch reused across calls: heads × real slots
	empty []float64 // scratch: each head's probability of one empty slot
	logs  []float64 // scratch: one head's log2(max(p, probClip)), real slots
}

// ComputeView is Compute in view v.
func (a *AttnStats) ComputeView(scores []float32, nHeads, kvLen int, v AttnView) error {
	return a.Compute(scores, nHeads, kvLen, v.Mode, v.PadLen)
}

// Compute fills a from the pre-softmax scores (already divided by √head_dim) of
// nHeads rows × kvLen real keys, laid out row-major. In Padded mode padLen is the
// cache size (padLen ≥ kvLen); it is ignored in Masked mode. Buffers inside a are
// reused, so a decode loop that keeps one AttnStats per sequence does not allocate.
//
// Padded statistics cost O(nHeads·kvLen) like masked ones, not O(nHeads·padLen):
// every empty slot of a head has the same score (0), hence the same probability
// e = exp(−max)/Z, so the padLen − kvLen empty slots enter the normaliser, the
// entropy (−n·e·log2 e), the agreement (one column of per-head e weighted by n)
// and the means (as cells scoring 0) in closed form.
func (a *AttnStats) Compute(scores []float32, nHeads, kvLen int, mode AttnMode, padLen int) error {
	if nHeads <= 0 || kvLen <= 0 || len(scores) != nHeads*kvLen {
		return fmt.Errorf("attention stats: %d scores for %d heads × %d keys", len(scores), nHeads, kvLen)
	}
	nEmpty := 0
	if mode == Padded {
		if padLen < kvLen {
			return fmt.Errorf("attention stats: pad length %d below %d real keys", padLen, kvLen)
		}
		nEmpty = padLen - kvLen
	}
	slots := kvLen + nEmpty
	a.Slots = slots
	a.View = AttnView{Mode: mode}
	if mode == Padded {
		a.View.PadLen = padLen
	}
	a.HeadEntropy = grow(a.HeadEntropy, nHeads)
	a.probs = grow(a.probs, nHeads*kvLen)
	a.empty = grow(a.empty, nHeads)
	a.logs = grow(a.logs, kvLen)

	var absSum float64
	for h := 0; h < nHeads; h++ {
		row := scores[h*kvLen : (h+1)*kvLen]
		p := a.probs[h*kvLen : (h+1)*kvLen]
		maxv := math.Inf(-1)
		if nEmpty > 0 {
			maxv = 0
		}
		for _, s := range row {
			maxv = math.Max(maxv, float64(s))
			absSum += math.Abs(float64(s))
		}
		ExpShifted(p, row, maxv) // math.Exp's bits, four at a time
		var z float64
		for _, e := range p {
			z += e
		}
		emptyP := 0.0
		if nEmpty > 0 {
			emptyP = math.Exp(-maxv)
			z += float64(nEmpty) * emptyP
		}
		// the divisions and logarithms four lanes at a time; the sum stays serial
		normalizeLog2(p, a.logs, z, probClip)
		var ent float64
		for j, pj := range p {
			ent -= pj * a.logs[j]
		}
		if nEmpty > 0 {
			emptyP /= z
			ent -= float64(nEmpty) * emptyP * math.Log2(math.Max(emptyP, probClip))
		}
		a.empty[h] = emptyP
		a.HeadEntropy[h] = ent
	}

	a.summariseHeads()

	// Agreement: every empty slot of head h has the same probability, so the
	// nEmpty padded columns collapse into one column weighted by nEmpty.
	var agree float64
	for j := 0; j < kvLen; j++ {
		var m float64
		for h := 0; h < nHeads; h++ {
			m += a.probs[h*kvLen+j]
		}
		m /= float64(nHeads)
		for h := 0; h < nHeads; h++ {
			agree += math.Abs(a.probs[h*kvLen+j] - m)
		}
	}
	if nEmpty > 0 {
		var m, col float64
		for _, e := range a.empty {
			m += e
		}
		m /= float64(nHeads)
		for _, e := range a.empty {
			col += math.Abs(e - m)
		}
		agree += float64(nEmpty) * col
	}
	cells := float64(nHeads * slots)
	a.Agreement = agree / cells
	a.InteractionStrength = absSum / cells
	return nil
}

// SetHeadEntropies sets the per-head entropies computed elsewhere (the GPU) and
// derives their mean and variances exactly as Compute does.
func (a *AttnStats) SetHeadEntropies(h []float64) {
	a.HeadEntropy = grow(a.HeadEntropy, len(h))
	copy(a.HeadEntropy, h)
	a.summariseHeads()
}

// summariseHeads fills Entropy and both variances from HeadEntropy.
func (a *AttnStats) summariseHeads() {
	n := len(a.HeadEntropy)
	var mean float64
	for _, e := range a.HeadEntropy {
		mean += e
	}
	mean /= float64(n)
	var ss float64
	for _, e := range a.HeadEntropy {
		ss += (e - mean) * (e - mean)
	}
	a.Entropy = mean
	a.Varentropy = ss / float64(n)
	a.VarentropyDDOF1 = math.NaN()
	if n > 1 {
		a.VarentropyDDOF1 = ss / float64(n-1)
	}
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
