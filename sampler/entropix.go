package sampler

import (
	"fmt"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Entropix is the entropy/varentropy-driven sampler (docs/ENTROPIX.md): per step it
// picks one of five strategies from the logits and attention metrics, then draws
// with the strategy's parameters.
type Entropix struct {
	cfg       EntropixConfig
	view      metrics.AttnView
	order     Order
	clarifyID int32
	// clarifyText is the clarifying token's text as resolved ("" when unknown: an
	// id given without a tokenizer to name it).
	clarifyText string
	checkLast   bool // clarifying check on the last token only (else the whole history)
	firstArgmx  bool
	promptMean  bool // first token's rules on the prompt-averaged metrics
	tr          truncator
	picks       []int // adaptive draws, reused
}

// stepMetrics are the six numbers the rules read.
type stepMetrics struct {
	ent, vent, attnEnt, attnVent, agreement, interaction float64
}

// plan is a strategy with the parameters it hands to the draw.
type plan struct {
	strategy   Strategy
	params     Params
	nSamples   int
	confidence float64
	// conditions are the four rules' truth values (lelv, helv, lehv, hehv) before
	// "first match wins".
	conditions [4]bool
}

// NewEntropix builds the sampler from a configuration and the clarifying token id
// (resolve it with Config.New, which consults the tokenizer).
func NewEntropix(cfg EntropixConfig, clarifyingID int32) (*Entropix, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sampler entropix: %w", err)
	}
	if clarifyingID < 0 {
		return nil, fmt.Errorf("sampler entropix: clarifying token id %d is negative", clarifyingID)
	}
	order, _ := ParseOrder(cfg.Order)
	view, _ := cfg.AttnView() // validated above
	text := ""
	if cfg.ClarifyingTokenID < 0 {
		text = cfg.ClarifyingToken // the id was resolved from this text
	}
	return &Entropix{
		clarifyText: text,
		cfg:         cfg, view: view, order: order, clarifyID: clarifyingID,
		checkLast:  cfg.clarifyCheck() == "last",
		firstArgmx: cfg.firstTokenArgmax(),
		promptMean: cfg.firstTokenMetrics() == "prompt_mean",
		picks:      make([]int, cfg.NAdaptiveSamples),
	}, nil
}

func (e *Entropix) Name() string { return "entropix:" + e.cfg.Variant }

// Config returns the configuration in effect.
func (e *Entropix) Config() EntropixConfig { return e.cfg }

// AttnView is the attention view the sampler's rules read; the engine computes
// each sequence's statistics in its sampler's view.
func (e *Entropix) AttnView() metrics.AttnView { return e.view }

// ClarifyingID is the resolved clarifying token.
func (e *Entropix) ClarifyingID() int32 { return e.clarifyID }

func (e *Entropix) Describe() map[string]any {
	m := e.cfg.Describe()
	m["clarifying_token_id"] = int(e.clarifyID)
	m["clarifying_token"] = e.clarifyText
	return m
}

func (e *Entropix) Clone() Sampler {
	c := *e
	c.tr = truncator{}
	c.picks = make([]int, len(e.picks))
	return &c
}

// Sample picks the next token. A sampler whose first token reads the prompt-averaged
// metrics (PromptMetrics) refuses an empty history here: use SampleFirst.
func (e *Entropix) Sample(d *metrics.Dist, a *metrics.AttnStats, history []int32, r *RNG) (Decision, error) {
	if len(history) == 0 && e.PromptMetrics() {
		return Decision{}, fmt.Errorf("sampler %s: the first token's rules read the metrics averaged over every prompt position "+
			"(first_token_metrics: prompt_mean); pass them with SampleFirst", e.Name())
	}
	return e.sample(d, a, nil, history, r)
}

// PromptMetrics reports whether the first token's rules read the metrics averaged
// over every prompt position (first_token_metrics: prompt_mean, the SmolLM port's
// faithful loop) rather than the last position's; the engine computes them when an
// input sets engine.Input.PromptStats.
func (e *Entropix) PromptMetrics() bool { return e.promptMean }

// SampleFirst picks the first generated token. When PromptMetrics, the rules read
// p (the prompt-averaged metrics) while the draw, the argmax and the scores use the
// last position's Dist, as the port's sample() does with logits[:, -1]; otherwise
// p is ignored and it is Sample with an empty history.
func (e *Entropix) SampleFirst(d *metrics.Dist, a *metrics.AttnStats, p *metrics.PromptStats, r *RNG) (Decision, error) {
	if !e.PromptMetrics() {
		return e.sample(d, a, nil, nil, r)
	}
	if p == nil || p.Positions == 0 {
		return Decision{}, fmt.Errorf("sampler %s: the first token needs the metrics averaged over every prompt position "+
			"(first_token_metrics: prompt_mean), and the engine computed none", e.Name())
	}
	return e.sample(d, a, p, nil, r)
}

// sample is one step; prompt, when set, replaces the six metrics the rules read.
func (e *Entropix) sample(d *metrics.Dist, a *metrics.AttnStats, prompt *metrics.PromptStats, history []int32, r *RNG) (Decision, error) {
	if err := checkDist(d); err != nil {
		return Decision{}, err
	}
	if a == nil {
		return Decision{}, fmt.Errorf("sampler %s: needs attention statistics, got none", e.Name())
	}
	if a.Slots > 0 && a.View != e.view {
		// Statistics from an engine: they must be the variant's (frog's thresholds
		// mean nothing on masked statistics).
		return Decision{}, fmt.Errorf("sampler %s: needs attention statistics in view %s, got %s", e.Name(), e.view, a.View)
	}
	if e.cfg.Randomness == "upstream" && r != nil {
		r.restartUpstream()
	}
	if int(e.clarifyID) >= d.VocabSize {
		return Decision{}, fmt.Errorf("sampler %s: clarifying token %d outside the vocabulary of %d", e.Name(), e.clarifyID, d.VocabSize)
	}
	m, err := e.metricsOf(d, a, prompt)
	if err != nil {
		return Decision{}, err
	}
	if e.firstArgmx && len(history) == 0 {
		return e.argmax(d, StrategyFirstTokenArgmax), nil
	}
	p := e.plan(m, e.clarifyingSeen(history))
	switch p.strategy {
	case StrategyArgmax:
		return e.argmax(d, StrategyArgmax), nil
	case StrategyInsertClarifying:
		return Decision{Token: e.clarifyID, Strategy: p.strategy, LogProb: logProbOf(d, e.clarifyID), Survivors: 1, TailMass: d.TailMass}, nil
	}
	if !(p.params.Temperature > 0) || math.IsInf(p.params.Temperature, 1) {
		// Only overridden coefficients get here; the original would have flipped or
		// flattened the distribution without a word.
		return Decision{}, fmt.Errorf("sampler %s: strategy %s computed temperature %v; check the configured coefficients",
			e.Name(), p.strategy, p.params.Temperature)
	}
	dec := Decision{
		Strategy: p.strategy, Temperature: p.params.Temperature, TopK: p.params.TopK,
		TopP: p.params.TopP, MinP: p.params.MinP, Faithful: e.cfg.Faithful,
		NSamples: p.nSamples, Confidence: p.confidence,
	}
	var c cut
	switch {
	case e.cfg.Faithful && e.cfg.FaithfulDraw == "smollm":
		c = e.tr.smollmSample(d, p.params)
	case e.cfg.Faithful:
		c = e.tr.originalSample(d, p.params)
	default:
		c = e.tr.truncate(d, p.params, e.order)
	}
	if p.strategy != StrategyAdaptive {
		e.tr.drawFrom(d, c, r, &dec)
		return dec, nil
	}
	// Adaptive: n draws from the same distribution, scored by raw log-probability plus
	// the shared confidence term; the first best wins.
	w := e.tr.weights(c)
	for i := range e.picks {
		e.picks[i] = c.start
		if !c.greedy {
			e.picks[i] = c.start + r.race(w)
		}
	}
	e.tr.outcome(d, c, e.picks[selectBest(d, e.picks, e.cfg.Faithful)], &dec)
	return dec, nil
}

// selectBest returns the index of the pick with the highest raw log-probability
// (the confidence term is the same for every pick), the first one on ties. Faithful
// mode keeps the upstream NaN: any −inf log-probability made every score NaN and
// jnp.argmax returned 0.
func selectBest(d *metrics.Dist, picks []int, faithful bool) int {
	best := 0
	for i, p := range picks {
		l := d.Candidates[p].Logit
		if faithful && math.IsInf(float64(l), -1) {
			return 0
		}
		if l > d.Candidates[picks[best]].Logit {
			best = i
		}
	}
	return best
}

func (e *Entropix) argmax(d *metrics.Dist, s Strategy) Decision { return argmaxDecision(d, s) }

// logProbOf finds id among the candidates; NaN when it is not one of them.
func logProbOf(d *metrics.Dist, id int32) float64 {
	if c, ok := d.Find(id); ok {
		return d.LogProb(c.Logit)
	}
	return math.NaN()
}

func (e *Entropix) clarifyingSeen(history []int32) bool {
	if e.checkLast {
		return len(history) > 0 && history[len(history)-1] == e.clarifyID
	}
	return slices.Contains(history, e.clarifyID)
}

func (e *Entropix) metricsOf(d *metrics.Dist, a *metrics.AttnStats, p *metrics.PromptStats) (stepMetrics, error) {
	var m stepMetrics
	if p != nil {
		av := p.AttnVarentropy
		if e.cfg.AttnVarentropyDDOF == 1 {
			av = p.AttnVarentropyDDOF1 // NaN (one head) already 0 per position
		}
		m = stepMetrics{p.LogitsEntropy, p.LogitsVarentropy, p.AttnEntropy, av, p.Agreement, p.InteractionStrength}
	} else {
		av := a.Varentropy
		if e.cfg.AttnVarentropyDDOF == 1 {
			av = a.VarentropyDDOF1
			if math.IsNaN(av) && len(a.HeadEntropy) == 1 {
				av = 0 // one head: the SmolLM port maps torch's NaN to 0
			}
		}
		m = stepMetrics{d.Entropy, d.Varentropy, a.Entropy, av, a.Agreement, a.InteractionStrength}
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"logits varentropy", m.vent}, {"attention entropy", m.attnEnt}, {"attention varentropy", m.attnVent},
		{"agreement", m.agreement}, {"interaction strength", m.interaction}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return m, fmt.Errorf("sampler %s: %s is %v", e.Name(), v.name, v.x)
		}
	}
	return m, nil
}
