package sampler

import (
	"errors"
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Strategy names why a token was chosen. The Entropix names are those of the
// reference goldens (golden/sampler/strategy.json).
type Strategy string

const (
	// StrategyGreedy: a baseline at temperature 0 took the lowest-id argmax.
	StrategyGreedy Strategy = "greedy"
	// StrategySample: a baseline drew from its truncated distribution.
	StrategySample Strategy = "sample"
	// StrategyFirstTokenArgmax: faithful Entropix took the argmax for the first
	// generated token, as the original generation loop did.
	StrategyFirstTokenArgmax Strategy = "first_token_argmax"
	// StrategyArgmax: Entropix low entropy, low varentropy.
	StrategyArgmax Strategy = "argmax"
	// StrategyInsertClarifying: Entropix high entropy, low varentropy, clarifying
	// token not seen yet.
	StrategyInsertClarifying Strategy = "insert_clarifying"
	// StrategyHELV: high entropy, low varentropy after the clarifying token.
	StrategyHELV Strategy = "helv_sample"
	// StrategyLEHV: low entropy, high varentropy.
	StrategyLEHV Strategy = "lehv"
	// StrategyHEHV: high entropy, high varentropy.
	StrategyHEHV Strategy = "hehv"
	// StrategyAdaptive: none of the above; best of several draws.
	StrategyAdaptive Strategy = "adaptive"
)

// Decision is one chosen token and everything a trace needs to say why.
// For deterministic strategies (greedy, argmax, insert_clarifying) the parameter
// fields are zero.
type Decision struct {
	Token    int32
	Strategy Strategy
	// Temperature, TopK, TopP and MinP are the parameters handed to the draw
	// (off: TopK 0, TopP 1, MinP 0). With Faithful set, MinP had no effect and TopP
	// was applied inverted, as in the original _sample.
	Temperature float64
	TopK        int
	TopP        float64
	MinP        float64
	Faithful    bool
	// LogProb is ln p(token) under the raw (temperature 1) full-vocabulary
	// distribution; NaN when the token is not among the candidates (an inserted
	// clarifying token outside the top-K).
	LogProb float64
	// SampleLogProb is ln of the token's probability in the truncated distribution it
	// was drawn from (0 for deterministic strategies).
	SampleLogProb float64
	// Survivors is how many tokens the draw could return (nonzero probability).
	Survivors int
	// NSamples is the number of draws made (adaptive: the candidates scored).
	NSamples int
	// Confidence is the adaptive branch's candidate-independent score term.
	Confidence float64
	// TailMass is the probability mass outside the Dist's candidates under the
	// tempered distribution before truncation: exact at temperature 1, an upper
	// bound otherwise; 0 when the candidates are the whole vocabulary.
	TailMass float64
	// TailCut reports that the truncation could have kept tokens outside the
	// candidates (or that their unknown mass could move a cut): the draw was then
	// renormalised over candidates only and differs from the reference by at most
	// TailMass.
	TailCut bool
}

// Sampler chooses the next token of one sequence. Implementations keep scratch
// buffers so Sample does not allocate; a Sampler is therefore not safe for
// concurrent use: Clone one per goroutine (or per sequence).
type Sampler interface {
	// Name is the configuration's short name (e.g. "min_p", "entropix:frog").
	Name() string
	// Describe returns every parameter in effect, for run manifests.
	Describe() map[string]any
	// Sample picks the token after history (the tokens generated so far, prompt
	// excluded) from the step's distribution d and attention statistics a (needed
	// by Entropix, ignored by the baselines), drawing randomness from r.
	Sample(d *metrics.Dist, a *metrics.AttnStats, history []int32, r *RNG) (Decision, error)
	// Clone returns an independent sampler with the same configuration.
	Clone() Sampler
}

// argmaxDecision takes the most likely candidate (candidates are sorted by logit,
// ties by lower id): the one place a deterministic argmax Decision is built.
func argmaxDecision(d *metrics.Dist, s Strategy) Decision {
	c := d.Candidates[0]
	return Decision{Token: c.ID, Strategy: s, LogProb: d.LogProb(c.Logit), Survivors: 1, TailMass: d.TailMass}
}

// FirstTokenArgmax is the decision of the original Entropix loop for the first
// generated token, whatever the sampler (a run's first_token_argmax): the argmax
// of the prefill's distribution.
func FirstTokenArgmax(d *metrics.Dist) (Decision, error) {
	if err := checkDist(d); err != nil {
		return Decision{}, err
	}
	return argmaxDecision(d, StrategyFirstTokenArgmax), nil
}

// ErrBadLogits is wrapped by every error about an unusable distribution.
var ErrBadLogits = errors.New("unusable logits")

// checkDist refuses distributions no sampler can draw from: no candidates, a NaN
// anywhere in the logits (the full-vocabulary statistics are NaN), or no finite logit.
func checkDist(d *metrics.Dist) error {
	switch {
	case d == nil || d.Len() == 0:
		return fmt.Errorf("sampler: %w: no candidates", ErrBadLogits)
	case d.VocabSize < d.Len():
		return fmt.Errorf("sampler: %w: %d candidates for a vocabulary of %d", ErrBadLogits, d.Len(), d.VocabSize)
	}
	top := float64(d.Candidates[0].Logit)
	switch {
	case math.IsNaN(top) || math.IsNaN(d.LogPartition) || math.IsNaN(d.Entropy):
		return fmt.Errorf("sampler: %w: logits contain NaN", ErrBadLogits)
	case math.IsInf(top, -1):
		return fmt.Errorf("sampler: %w: every logit is -inf", ErrBadLogits)
	case math.IsInf(top, 1):
		return fmt.Errorf("sampler: %w: a logit is +inf", ErrBadLogits)
	case !(d.TailMass >= 0 && d.TailMass <= 1):
		return fmt.Errorf("sampler: %w: tail mass %v outside [0, 1]", ErrBadLogits, d.TailMass)
	}
	return nil
}

// drawFrom draws one token from cut c and fills the Decision's outcome fields.
func (t *truncator) drawFrom(d *metrics.Dist, c cut, r *RNG, dec *Decision) {
	i := c.start
	if !c.greedy {
		i += r.race(t.weights(c))
	}
	t.outcome(d, c, i, dec)
}

// outcome records candidate i, chosen from cut c, in dec.
func (t *truncator) outcome(d *metrics.Dist, c cut, i int, dec *Decision) {
	cand := d.Sorted(i + 1)[i]
	dec.Token = cand.ID
	dec.LogProb = d.LogProb(cand.Logit)
	dec.TailMass, dec.TailCut = c.tailMass, c.tailCut
	dec.SampleLogProb, dec.Survivors = 0, 1
	if c.greedy {
		return
	}
	dec.SampleLogProb = math.Log(t.w[i] / c.z)
	dec.Survivors = 0
	for _, x := range t.weights(c) {
		if x > 0 {
			dec.Survivors++
		}
	}
}
