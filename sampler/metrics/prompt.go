package metrics

import (
	"fmt"
	"math"
)

// PromptStats are the six numbers the SmolLM port (SinatrasC/entropix-smollm
// b48dc7a, entr_model_torch) runs its rules on to choose the first generated token:
// calculate_metrics over the whole prefill, i.e. means over every prompt position.
//
//   - logits entropy and varentropy: each position's full-vocabulary softmax (bits,
//     bits²), averaged over positions;
//   - attention: the metric layer's pre-softmax scores of every prompt query over
//     every prompt key, future keys included (the port returns pre_scores, before
//     its causal mask is added, and its prefill's keys are the prompt's alone);
//     per position the same statistics as AttnStats in the masked view over all
//     n keys, then averaged over positions. The per-position ddof-1 varentropy of
//     one head is NaN in torch and mapped to 0 there before the mean, as here.
type PromptStats struct {
	// Positions is how many prompt positions the means run over; 0 means the
	// engine computed none (the input did not ask).
	Positions int

	LogitsEntropy, LogitsVarentropy float64
	AttnEntropy                     float64
	// AttnVarentropy is the mean over positions of the population variance
	// (ddof 0) across heads; AttnVarentropyDDOF1 of the sample variance (ddof 1,
	// torch.var), NaN mapped to 0 per position.
	AttnVarentropy, AttnVarentropyDDOF1 float64
	Agreement, InteractionStrength      float64
}

// LogitStatsScratch is LogitStats with the caller's scratch (as long as logits),
// which halves the exponentials without changing a bit of the result: for loops
// over many positions (the prompt-averaged metrics).
func LogitStatsScratch(logits []float32, exps []float64) (logZ, entropyBits, varentropyBits2 float64) {
	if len(exps) != len(logits) {
		exps = nil
	}
	logZ, entropyBits, varentropyBits2, _ = logitStats(logits, exps)
	return logZ, entropyBits, varentropyBits2
}

// PositionAttn is one prompt position's share of the attention part of PromptStats.
type PositionAttn struct {
	Entropy, Varentropy, VarentropyDDOF1, Agreement, InteractionStrength float64
}

// Position returns a's numbers as one prompt position's: a must have been
// computed in the masked view over all of the prompt's keys (future ones
// included). A ddof-1 varentropy of NaN (one head) becomes 0, as the port's
// torch.where does.
func (a *AttnStats) Position() PositionAttn {
	v1 := a.VarentropyDDOF1
	if math.IsNaN(v1) {
		v1 = 0
	}
	return PositionAttn{a.Entropy, a.Varentropy, v1, a.Agreement, a.InteractionStrength}
}

// PromptSums accumulates the logits part of PromptStats position by position.
// Adding in position order makes the sums the same whichever chunks the prompt
// was fed in.
type PromptSums struct {
	Positions           int
	Entropy, Varentropy float64
}

// Add adds one position's logits entropy (bits) and varentropy (bits²), as
// LogitStats returns them.
func (s *PromptSums) Add(entropy, varentropy float64) {
	s.Positions++
	s.Entropy += entropy
	s.Varentropy += varentropy
}

// Stats averages the logits sums and the attention rows of the same positions
// (rows[i] is position i's), summing the rows in position order.
func (s *PromptSums) Stats(rows []PositionAttn) (PromptStats, error) {
	n := s.Positions
	if n == 0 || len(rows) != n {
		return PromptStats{}, fmt.Errorf("prompt metrics: %d positions of logits and %d of attention", n, len(rows))
	}
	var a PositionAttn
	for _, r := range rows {
		a.Entropy += r.Entropy
		a.Varentropy += r.Varentropy
		a.VarentropyDDOF1 += r.VarentropyDDOF1
		a.Agreement += r.Agreement
		a.InteractionStrength += r.InteractionStrength
	}
	f := float64(n)
	p := PromptStats{
		Positions:     n,
		LogitsEntropy: s.Entropy / f, LogitsVarentropy: s.Varentropy / f,
		AttnEntropy: a.Entropy / f, AttnVarentropy: a.Varentropy / f, AttnVarentropyDDOF1: a.VarentropyDDOF1 / f,
		Agreement: a.Agreement / f, InteractionStrength: a.InteractionStrength / f,
	}
	for _, v := range []float64{p.LogitsEntropy, p.LogitsVarentropy, p.AttnEntropy, p.AttnVarentropy,
		p.AttnVarentropyDDOF1, p.Agreement, p.InteractionStrength} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return PromptStats{}, fmt.Errorf("prompt metrics over %d positions: a mean is %v (non-finite logits or scores)", n, v)
		}
	}
	return p, nil
}
