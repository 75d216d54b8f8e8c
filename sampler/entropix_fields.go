package sampler

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/internal/suggest"
)

// entropixAliases maps the original code's SamplerConfig names (and frog's
// min_probability) onto the config-file names, so upstream configs paste in as is.
var entropixAliases = map[string]string{
	"temp":             "temperature",
	"min_probability":  "min_p",
	"low_ent_thresh":   "low_logits_entropy",
	"med_ent_thresh":   "medium_logits_entropy",
	"high_ent_thresh":  "high_logits_entropy",
	"low_vent_thresh":  "low_logits_varentropy",
	"high_vent_thresh": "high_logits_varentropy",
}

// entropixField is one settable field of an EntropixConfig.
type entropixField struct {
	f    *float64
	i    *int
	b    *bool
	s    *string
	bPtr **bool
}

// fields maps every config-file name to the field it sets.
func (c *EntropixConfig) fields() map[string]entropixField {
	m := map[string]entropixField{
		"faithful": {b: &c.Faithful}, "order": {s: &c.Order},
		"temperature": {f: &c.Temperature}, "top_p": {f: &c.TopP}, "top_k": {i: &c.TopK},
		"min_p":                    {f: &c.MinP},
		"use_attention_conditions": {b: &c.UseAttention}, "use_agreement_conditions": {b: &c.UseAgreement},
		"use_interaction_conditions": {b: &c.UseInteraction},
		"lehv_top_k_floor":           {i: &c.LEHVTopKFloor}, "hehv_top_p_floor": {f: &c.HEHVTopPFloor},
		"adaptive_formula": {s: &c.AdaptiveFormula}, "n_adaptive_samples": {i: &c.NAdaptiveSamples},
		"ada_top_p_min": {f: &c.AdaTopPMin}, "ada_top_p_max": {f: &c.AdaTopPMax},
		"ada_top_k_min": {i: &c.AdaTopKMin}, "ada_top_k_max": {i: &c.AdaTopKMax},
		"ada_min_p_min": {f: &c.AdaMinPMin}, "ada_min_p_max": {f: &c.AdaMinPMax},
		"clarifying_token": {s: &c.ClarifyingToken}, "clarifying_token_id": {i: &c.ClarifyingTokenID},
		"clarifying_check": {s: &c.ClarifyingCheck}, "first_token_argmax": {bPtr: &c.FirstTokenArgmax},
		"first_token_metrics":  {s: &c.FirstTokenMetrics},
		"attn_varentropy_ddof": {i: &c.AttnVarentropyDDOF},
		"attn_mode":            {s: &c.AttnMode}, "pad_len": {i: &c.PadLen}, "faithful_draw": {s: &c.FaithfulDraw},
		"randomness": {s: &c.Randomness},
	}
	for _, f := range c.floatFields() {
		m[f.name] = entropixField{f: f.v}
	}
	return m
}

// EntropixFields lists every config-file field of the Entropix sampler, sorted.
func EntropixFields() []string {
	var c EntropixConfig
	names := slices.Sorted(maps.Keys(c.fields()))
	return append(names, "name", "variant")
}

// decodeEntropix starts from the variant's preset (default "original") and applies
// every other field of m, then validates.
func decodeEntropix(m map[string]any) (EntropixConfig, error) {
	variant := "original"
	if v, ok := m["variant"]; ok {
		s, err := asString("variant", v)
		if err != nil {
			return EntropixConfig{}, err
		}
		variant = s
	}
	c, err := EntropixPreset(variant)
	if err != nil {
		return c, err
	}
	fields := c.fields()
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "variant" {
			continue
		}
		name := k
		if canon, ok := entropixAliases[k]; ok {
			name = canon
		}
		if prev, dup := seen[name]; dup {
			return c, fmt.Errorf("field %s: given twice (as %s and %s)", name, prev, k)
		}
		seen[name] = k
		f, ok := fields[name]
		if !ok {
			return c, fmt.Errorf("field %s: unknown Entropix field%s (see sampler/README.md)", k, suggest.Hint(k, EntropixFields()))
		}
		if err := f.set(k, m[k]); err != nil {
			return c, err
		}
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

func (f entropixField) set(name string, v any) error {
	var err error
	switch {
	case f.f != nil:
		*f.f, err = asFloat(name, v)
	case f.i != nil:
		*f.i, err = asInt(name, v)
	case f.b != nil:
		*f.b, err = asBool(name, v)
	case f.s != nil:
		*f.s, err = asString(name, v)
	case f.bPtr != nil:
		var b bool
		if b, err = asBool(name, v); err == nil {
			*f.bPtr = &b
		}
	}
	return err
}

// asFloat accepts any number (YAML ints included); NaN and ±Inf are refused.
func asFloat(name string, v any) (float64, error) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case float32:
		x = float64(n)
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	case uint64:
		x = float64(n)
	default:
		return 0, fmt.Errorf("field %s: want a number, got %T %v", name, v, v)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("field %s: %v is not a finite number", name, x)
	}
	return x, nil
}

// asInt accepts integers and integral floats (JSON decodes every number as float64).
func asInt(name string, v any) (int, error) {
	switch n := v.(type) {
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case uint64:
		if n > math.MaxInt32 {
			return 0, fmt.Errorf("field %s: %d is too large", name, n)
		}
		return int(n), nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt32 {
			return 0, fmt.Errorf("field %s: want an integer, got %v", name, n)
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("field %s: want an integer, got %T %v", name, v, v)
}

func asBool(name string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("field %s: want true or false, got %T %v", name, v, v)
	}
	return b, nil
}

func asString(name string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("field %s: want a string, got %T %v", name, v, v)
	}
	return s, nil
}
