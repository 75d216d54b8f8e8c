package sampler

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/suggest"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Levels are a metric's low / medium / high thresholds.
type Levels struct{ Low, Medium, High float64 }

// EntropixConfig is every threshold, coefficient and switch of the Entropix sampler.
// Presets (EntropixPreset) reproduce the published variants; a config file may
// override any field; the config-file names are listed by EntropixFields.
type EntropixConfig struct {
	// Variant names the preset the config started from.
	Variant string
	// Faithful reproduces the original _sample quirks (min_p a no-op, inverted top-p),
	// the preset's clarifying check and the argmax first token. When false the draws
	// use the standard truncation in Order and the clarifying check looks at the last
	// token only.
	Faithful bool
	// Order is the filter order of fixed-mode draws (default vllm-v1, the order the
	// original code intended: min-p on the full distribution, then top-k, then top-p).
	Order string

	Temperature float64
	TopP        float64
	TopK        int
	MinP        float64

	LogitsEntropy       Levels
	LogitsVarentropy    Levels
	AttnEntropy         Levels
	AttnVarentropy      Levels
	Agreement           Levels
	InteractionStrength Levels

	// Which conditions beyond the logits entropy/varentropy ones the rules test
	// (original: none; frog: all; SmolLM: attention only).
	UseAttention   bool
	UseAgreement   bool
	UseInteraction bool

	HELVAttnEntOffset float64
	HELVAttnEntCoef   float64
	HELVTempCap       float64

	LEHVInteractionOffset float64
	LEHVInteractionCoef   float64
	LEHVTempCap           float64
	LEHVTopKAgreeCoef     float64
	LEHVTopKFloor         int

	HEHVAttnEntCoef    float64
	HEHVAttnVentOffset float64
	HEHVAttnVentCoef   float64
	HEHVTempFloor      float64
	HEHVTopPFloor      float64

	// AdaptiveFormula is "original" (T and min_p from U = ent+vent and
	// A = attn_ent+attn_vent, raw confidence terms) or "frog" (T from ent and attn_ent,
	// min_p from vent, confidence terms divided by the high thresholds).
	AdaptiveFormula  string
	NAdaptiveSamples int
	AdaTempLogits    float64
	AdaTempAttn      float64
	AdaTempAgree     float64
	AdaTopP          float64
	AdaTopPMin       float64
	AdaTopPMax       float64
	AdaTopKInt       float64
	AdaTopKAgree     float64
	AdaTopKMin       int
	AdaTopKMax       int
	AdaMinP          float64
	AdaMinPMin       float64
	AdaMinPMax       float64

	AdaScoreLogitsEnt  float64
	AdaScoreAttnEnt    float64
	AdaScoreLogitsVent float64
	AdaScoreAttnVent   float64
	AdaScoreAgree      float64
	AdaScoreInt        float64

	// ClarifyingToken is the text of the clarifying token, resolved through the
	// tokenizer; ClarifyingTokenID, when ≥ 0, wins over it.
	ClarifyingToken   string
	ClarifyingTokenID int
	// ClarifyingCheck is "history" (the token anywhere in the generated tokens
	// suppresses another insertion: the JAX original and frog) or "last" (only the
	// most recent token: the SmolLM port and the fixed mode). Empty: faithful uses
	// the preset's, fixed uses "last".
	ClarifyingCheck string
	// FirstTokenArgmax takes the argmax for the first generated token, as the
	// JAX loop did. Empty (nil) means: on when faithful for original and frog (the
	// SmolLM port runs the rules on the prefill instead).
	FirstTokenArgmax *bool
	// FirstTokenMetrics is what the first token's rules read: "last" (the last
	// prompt position's metrics, as every later step) or "prompt_mean" (the means
	// over every prompt position, the SmolLM port's calculate_metrics on the whole
	// prefill; the engine computes them, the CPU backend only). Empty means
	// prompt_mean when faithful for the smollm-* variants (unless the first token
	// is the argmax), else last.
	FirstTokenMetrics string
	// AttnVarentropyDDOF picks which attention varentropy the rules read: 0
	// (population variance, JAX) or 1 (sample variance, SmolLM port; NaN for a
	// single head becomes 0 as there).
	AttnVarentropyDDOF int

	// AttnMode ("padded" or "masked") and PadLen are the attention view the rules
	// read, part of each variant: upstream computes the statistics over its whole
	// fixed KV cache, empty slots scoring 0 (JAX original and frog: 4096 slots; the
	// SmolLM port: 2048). frog's attention thresholds only make sense there.
	AttnMode string
	PadLen   int
	// FaithfulDraw is the upstream _sample that faithful mode reproduces: "jax"
	// (entropix/sampler.py: min_p a no-op) or "smollm" (entr_model_torch/sampler.py:
	// min_p applied at T, the survivors then drawn from the untempered logits).
	FaithfulDraw string
	// Randomness is "per_sequence" (each sequence's own stream, NewRNG) or
	// "upstream" (faithful only: every step restarts one fixed stream, as the JAX
	// original's PRNGKey(1337) passed to every call makes the same noise repeat).
	Randomness string

	presetCheck string // the preset's faithful clarifying check
	// presetFirstArgmax: the preset's loop takes the prefill argmax as the first
	// token (JAX main.py) rather than running the rules on the prefill (SmolLM port).
	presetFirstArgmax bool
	// presetPromptMean: the preset's faithful first token reads the prompt means.
	presetPromptMean bool
}

// EntropixVariants lists the presets EntropixPreset knows.
var EntropixVariants = []string{"original", "frog", "smollm-135m", "smollm-360m", "smollm-1.7b"}

// EntropixPreset returns the named configuration (see docs/ENTROPIX.md and
// golden/sampler/README.md for the sources), not yet validated or resolved.
func EntropixPreset(variant string) (EntropixConfig, error) {
	c := EntropixConfig{
		Variant: variant, Order: OrderVLLMV1.String(),
		Temperature: 0.666, TopP: 0.90, TopK: 27, MinP: 0.03,
		HELVAttnEntOffset: 1.3, HELVAttnEntCoef: 0.2, HELVTempCap: 1.5,
		LEHVInteractionOffset: 1.2, LEHVInteractionCoef: 0.3, LEHVTempCap: 1.5,
		LEHVTopKAgreeCoef: 0.5, LEHVTopKFloor: 5,
		HEHVAttnEntCoef: 0.2, HEHVAttnVentOffset: 2.0, HEHVAttnVentCoef: 0.5,
		HEHVTempFloor: 2.0, HEHVTopPFloor: 0.5,
		NAdaptiveSamples: 5,
		AdaTempLogits:    0.3, AdaTempAttn: 0.2, AdaTempAgree: 0.2,
		AdaTopP: 0.1, AdaTopPMin: 0.1, AdaTopPMax: 1.0,
		AdaTopKInt: 0.3, AdaTopKAgree: 0.2, AdaTopKMin: 1, AdaTopKMax: 100,
		AdaMinP: 0.5, AdaMinPMin: 0.01, AdaMinPMax: 0.5,
		AdaScoreLogitsEnt: 0.1, AdaScoreAttnEnt: 0.2, AdaScoreLogitsVent: 0.3,
		AdaScoreAttnVent: 0.4, AdaScoreAgree: 0.5, AdaScoreInt: 0.6,
		ClarifyingToken: " ...", ClarifyingTokenID: -1,
		AttnMode: "padded", PadLen: 4096, FaithfulDraw: "jax", Randomness: "per_sequence",
		presetFirstArgmax: true,
	}
	smollm := func(vent, attnEnt, attnVent Levels) {
		c.AdaptiveFormula, c.presetCheck = "frog", "last"
		// The port's KV cache (config.py max_seq_len), its _sample, and the
		// clarifying token its notebook passes: id 2026, "...", in SmolLM2's vocabulary.
		c.PadLen, c.FaithfulDraw, c.ClarifyingToken = 2048, "smollm", "..."
		c.presetFirstArgmax, c.presetPromptMean = false, true
		c.UseAttention = true
		c.AttnVarentropyDDOF = 1
		c.LogitsEntropy = Levels{0.5, 1.484, 2.07}
		c.LogitsVarentropy, c.AttnEntropy, c.AttnVarentropy = vent, attnEnt, attnVent
		// Present in the SmolLM config, used only by the confidence score (the
		// agreement and interaction conditions are switched off there).
		c.Agreement = Levels{1.8e-06, 3.8e-06, 4.8e-06}
		c.InteractionStrength = Levels{0.18, 0.227, 0.244}
	}
	switch variant {
	case "original":
		c.AdaptiveFormula, c.presetCheck = "original", "history"
		c.LogitsEntropy = Levels{0.1, 3.0, 5.0}
		// The original has no medium varentropy threshold and no attention thresholds.
		c.LogitsVarentropy = Levels{0.1, 5.0, 5.0}
	case "frog":
		c.AdaptiveFormula, c.presetCheck = "frog", "history"
		c.UseAttention, c.UseAgreement, c.UseInteraction = true, true, true
		c.LogitsEntropy = Levels{0.01, 0.7, 2.1}
		c.LogitsVarentropy = Levels{0.05, 2.0, 5.8}
		c.AttnEntropy = Levels{11.915, 11.921, 11.926}
		c.AttnVarentropy = Levels{0.001, 0.0045, 0.009}
		c.Agreement = Levels{2e-6, 4e-6, 5e-6}
		c.InteractionStrength = Levels{0.2, 0.247, 0.264}
	case "smollm-135m":
		smollm(Levels{3.18, 3.75, 6.08}, Levels{7.84, 7.656, 7.41}, Levels{5.112, 5.8125, 6.82})
	case "smollm-360m":
		smollm(Levels{3.18, 3.75, 6.08}, Levels{8.889, 8.89, 8.891}, Levels{5.112, 5.8125, 6.82})
	case "smollm-1.7b":
		smollm(Levels{1.28, 3.75, 6.08}, Levels{8.075, 8.3125, 8.475}, Levels{9.875, 10.125, 10.275})
	default:
		return c, fmt.Errorf("field variant: unknown Entropix variant %q%s (want one of %s)", variant, suggest.Hint(variant, EntropixVariants), strings.Join(EntropixVariants, ", "))
	}
	return c, nil
}

// AttnView is the attention view the rules read (pad_len is ignored when masked).
func (c *EntropixConfig) AttnView() (metrics.AttnView, error) {
	mode, err := metrics.ParseAttnMode(c.AttnMode)
	if err != nil || c.AttnMode == "" {
		return metrics.AttnView{}, fmt.Errorf("field attn_mode: %q (want padded or masked)", c.AttnMode)
	}
	v := metrics.AttnView{Mode: mode}
	if mode == metrics.Padded {
		v.PadLen = c.PadLen
	}
	if err := v.Check(); err != nil {
		return v, fmt.Errorf("field pad_len: %d: a padded view needs at least one slot", c.PadLen)
	}
	return v, nil
}

// clarifyCheck resolves the clarifying check in effect.
func (c *EntropixConfig) clarifyCheck() string {
	switch {
	case c.ClarifyingCheck != "":
		return c.ClarifyingCheck
	case c.Faithful:
		return c.presetCheck
	}
	return "last"
}

func (c *EntropixConfig) firstTokenArgmax() bool {
	if c.FirstTokenArgmax != nil {
		return *c.FirstTokenArgmax
	}
	return c.Faithful && c.presetFirstArgmax
}

func (c *EntropixConfig) firstTokenMetrics() string {
	switch {
	case c.FirstTokenMetrics != "":
		return c.FirstTokenMetrics
	case c.Faithful && c.presetPromptMean && !c.firstTokenArgmax():
		return "prompt_mean"
	}
	return "last"
}

// Validate checks every field a user can set.
func (c *EntropixConfig) Validate() error {
	if err := validateParams(Params{Temperature: c.Temperature, TopK: c.TopK, TopP: c.TopP, MinP: c.MinP}); err != nil {
		return err
	}
	if c.Temperature == 0 {
		return fmt.Errorf("field temperature: Entropix needs a positive base temperature")
	}
	if c.TopK < 1 {
		return fmt.Errorf("field top_k: %d; Entropix needs top_k ≥ 1 (the original's lax.top_k)", c.TopK)
	}
	if _, err := ParseOrder(c.Order); err != nil {
		return fmt.Errorf("field order: %w", err)
	}
	if !slices.Contains([]string{"original", "frog"}, c.AdaptiveFormula) {
		return fmt.Errorf("field adaptive_formula: %q (want original or frog)", c.AdaptiveFormula)
	}
	if !slices.Contains([]string{"", "history", "last"}, c.ClarifyingCheck) {
		return fmt.Errorf("field clarifying_check: %q (want history or last)", c.ClarifyingCheck)
	}
	if _, err := c.AttnView(); err != nil {
		return err
	}
	if !slices.Contains([]string{"", "last", "prompt_mean"}, c.FirstTokenMetrics) {
		return fmt.Errorf("field first_token_metrics: %q (want last or prompt_mean)", c.FirstTokenMetrics)
	}
	if c.FirstTokenMetrics == "prompt_mean" && c.firstTokenArgmax() {
		return fmt.Errorf("field first_token_metrics: prompt_mean has no effect while first_token_argmax is on (the first token is the argmax); set first_token_argmax: false")
	}
	if !slices.Contains([]string{"jax", "smollm"}, c.FaithfulDraw) {
		return fmt.Errorf("field faithful_draw: %q (want jax or smollm)", c.FaithfulDraw)
	}
	switch c.Randomness {
	case "per_sequence":
	case "upstream":
		if !c.Faithful {
			return fmt.Errorf("field randomness: upstream reproduces the faithful loop's fixed key; it needs faithful: true")
		}
	default:
		return fmt.Errorf("field randomness: %q (want per_sequence or upstream)", c.Randomness)
	}
	if c.AttnVarentropyDDOF != 0 && c.AttnVarentropyDDOF != 1 {
		return fmt.Errorf("field attn_varentropy_ddof: %d (want 0 or 1)", c.AttnVarentropyDDOF)
	}
	if c.NAdaptiveSamples < 1 {
		return fmt.Errorf("field n_adaptive_samples: %d (want ≥ 1)", c.NAdaptiveSamples)
	}
	if c.AdaTopKMin < 1 || c.AdaTopKMax < c.AdaTopKMin {
		return fmt.Errorf("fields ada_top_k_min/ada_top_k_max: [%d, %d] is not a range within [1, ∞)", c.AdaTopKMin, c.AdaTopKMax)
	}
	if !(c.AdaTopPMin > 0 && c.AdaTopPMin <= c.AdaTopPMax && c.AdaTopPMax <= 1) {
		return fmt.Errorf("fields ada_top_p_min/ada_top_p_max: [%v, %v] is not a range within (0, 1]", c.AdaTopPMin, c.AdaTopPMax)
	}
	if !(c.AdaMinPMin >= 0 && c.AdaMinPMin <= c.AdaMinPMax && c.AdaMinPMax <= 1) {
		return fmt.Errorf("fields ada_min_p_min/ada_min_p_max: [%v, %v] is not a range within [0, 1]", c.AdaMinPMin, c.AdaMinPMax)
	}
	if c.LEHVTopKFloor < 1 {
		return fmt.Errorf("field lehv_top_k_floor: %d (want ≥ 1)", c.LEHVTopKFloor)
	}
	if !(c.HEHVTopPFloor > 0 && c.HEHVTopPFloor <= 1) {
		return fmt.Errorf("field hehv_top_p_floor: %v is outside (0, 1]", c.HEHVTopPFloor)
	}
	if c.ClarifyingTokenID < -1 {
		return fmt.Errorf("field clarifying_token_id: %d is negative", c.ClarifyingTokenID)
	}
	for _, f := range c.floatFields() {
		if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return fmt.Errorf("field %s: %v is not a finite number", f.name, *f.v)
		}
	}
	return nil
}

type namedFloat struct {
	name string
	v    *float64
}

// floatFields lists the thresholds and coefficients for checks and descriptions.
func (c *EntropixConfig) floatFields() []namedFloat {
	out := []namedFloat{
		{"helv_attn_ent_offset", &c.HELVAttnEntOffset}, {"helv_attn_ent_coef", &c.HELVAttnEntCoef},
		{"helv_temp_cap", &c.HELVTempCap},
		{"lehv_interaction_strength_offset", &c.LEHVInteractionOffset},
		{"lehv_interaction_strength_coef", &c.LEHVInteractionCoef},
		{"lehv_temp_cap", &c.LEHVTempCap}, {"lehv_top_k_agree_coef", &c.LEHVTopKAgreeCoef},
		{"hehv_attn_ent_coef", &c.HEHVAttnEntCoef}, {"hehv_attn_vent_offset", &c.HEHVAttnVentOffset},
		{"hehv_attn_vent_coef", &c.HEHVAttnVentCoef}, {"hehv_temp_floor", &c.HEHVTempFloor},
		{"ada_temp_logits", &c.AdaTempLogits}, {"ada_temp_attn", &c.AdaTempAttn},
		{"ada_temp_agree", &c.AdaTempAgree}, {"ada_top_p", &c.AdaTopP},
		{"ada_top_k_int", &c.AdaTopKInt}, {"ada_top_k_agree", &c.AdaTopKAgree},
		{"ada_min_p", &c.AdaMinP},
		{"ada_score_logits_ent", &c.AdaScoreLogitsEnt}, {"ada_score_attn_ent", &c.AdaScoreAttnEnt},
		{"ada_score_logits_vent", &c.AdaScoreLogitsVent}, {"ada_score_attn_vent", &c.AdaScoreAttnVent},
		{"ada_score_agree", &c.AdaScoreAgree}, {"ada_score_int", &c.AdaScoreInt},
	}
	for _, l := range c.levels() {
		out = append(out, namedFloat{"low_" + l.name, &l.v.Low},
			namedFloat{"medium_" + l.name, &l.v.Medium}, namedFloat{"high_" + l.name, &l.v.High})
	}
	return out
}

type namedLevels struct {
	name string
	v    *Levels
}

func (c *EntropixConfig) levels() []namedLevels {
	return []namedLevels{
		{"logits_entropy", &c.LogitsEntropy}, {"logits_varentropy", &c.LogitsVarentropy},
		{"attention_entropy", &c.AttnEntropy}, {"attention_varentropy", &c.AttnVarentropy},
		{"agreement", &c.Agreement}, {"interaction_strength", &c.InteractionStrength},
	}
}

// Describe returns every field in effect, for manifests.
func (c *EntropixConfig) Describe() map[string]any {
	m := map[string]any{
		"name": "entropix", "variant": c.Variant, "faithful": c.Faithful, "order": c.Order,
		"temperature": c.Temperature, "top_p": c.TopP, "top_k": c.TopK, "min_p": c.MinP,
		"use_attention_conditions": c.UseAttention, "use_agreement_conditions": c.UseAgreement,
		"use_interaction_conditions": c.UseInteraction,
		"lehv_top_k_floor":           c.LEHVTopKFloor, "adaptive_formula": c.AdaptiveFormula,
		"n_adaptive_samples": c.NAdaptiveSamples, "ada_top_p_min": c.AdaTopPMin,
		"ada_top_p_max": c.AdaTopPMax, "ada_top_k_min": c.AdaTopKMin, "ada_top_k_max": c.AdaTopKMax,
		"ada_min_p_min": c.AdaMinPMin, "ada_min_p_max": c.AdaMinPMax, "hehv_top_p_floor": c.HEHVTopPFloor,
		"clarifying_token": c.ClarifyingToken, "clarifying_token_id": c.ClarifyingTokenID,
		"clarifying_check": c.clarifyCheck(), "first_token_argmax": c.firstTokenArgmax(),
		"first_token_metrics":  c.firstTokenMetrics(),
		"attn_varentropy_ddof": c.AttnVarentropyDDOF,
		"attn_mode":            c.AttnMode, "pad_len": c.PadLen, "faithful_draw": c.FaithfulDraw,
		"randomness": c.Randomness,
	}
	for _, f := range c.floatFields() {
		m[f.name] = *f.v
	}
	return m
}
