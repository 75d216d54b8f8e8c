package sampler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// TokenLookup resolves a token's text (e.g. " ...") to its id in the model's
// tokenizer; ok is false when no single token has that text. The sampler package
// imports no tokenizer, so callers pass this in.
type TokenLookup func(text string) (id int32, ok bool)

// Baseline names and their documented defaults (fields not listed are off).
var baselineDefaults = map[string]Params{
	"greedy":      {Temperature: 0, TopP: 1},
	"temperature": {Temperature: 1, TopP: 1},
	"top_k":       {Temperature: 1, TopK: 50, TopP: 1},
	"top_p":       {Temperature: 1, TopP: 0.9},
	"min_p":       {Temperature: 1, TopP: 1, MinP: 0.1},
	"combined":    {Temperature: 1, TopP: 1},
}

// SamplerNames lists every name a Config accepts.
var SamplerNames = []string{"greedy", "temperature", "top_k", "top_p", "min_p", "combined", "entropix"}

// Config is a validated sampler configuration, resolved from a Spec (what the user
// wrote): a baseline (Name, Params, Order) or Entropix (Name "entropix", Entropix).
type Config struct {
	Name     string
	Params   Params
	Order    Order
	Entropix EntropixConfig
}

// DefaultConfig returns a name's configuration with its documented defaults;
// for "entropix" the variant is "original", fixed (not faithful).
func DefaultConfig(name string) (Config, error) {
	return ParseConfig(map[string]any{"name": name})
}

// ParseConfig decodes a generic map, as found inside a sweep config, e.g.
// {name: min_p, temperature: 1.0, min_p: 0.1} or
// {name: entropix, variant: frog, faithful: true, high_logits_entropy: 2.5}.
// Unknown names and fields and out-of-range values are errors naming the field.
func ParseConfig(m map[string]any) (Config, error) {
	rawName, ok := m["name"]
	if !ok {
		return Config{}, fmt.Errorf("sampler spec: field name is missing (want one of %s)", strings.Join(SamplerNames, ", "))
	}
	name, ok := rawName.(string)
	if !ok {
		return Config{}, fmt.Errorf("sampler spec: field name: want a string, got %T", rawName)
	}
	rest := maps.Clone(m)
	delete(rest, "name")
	if name == "entropix" {
		cfg, err := decodeEntropix(rest)
		if err != nil {
			return Config{}, fmt.Errorf("sampler entropix: %w", err)
		}
		return Config{Name: name, Entropix: cfg}, nil
	}
	p, order, err := decodeBaseline(name, rest)
	if err != nil {
		return Config{}, fmt.Errorf("sampler %s: %w", name, err)
	}
	return Config{Name: name, Params: p, Order: order}, nil
}

// ParseConfigYAML decodes one configuration from YAML (a mapping, e.g.
// "{name: top_p, temperature: 0.7, top_p: 0.95}").
func ParseConfigYAML(b []byte) (Config, error) {
	var s Config
	if err := yaml.Unmarshal(b, &s); err != nil {
		return Config{}, err
	}
	if s.Name == "" {
		return Config{}, fmt.Errorf("sampler spec: empty document")
	}
	return s, nil
}

// UnmarshalYAML lets a Config sit directly in a YAML config; errors carry the line.
func (s *Config) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("sampler spec (line %d): want a mapping such as {name: greedy}", n.Line)
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return fmt.Errorf("sampler spec (line %d): %w", n.Line, err)
	}
	spec, err := ParseConfig(m)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = spec
	return nil
}

// MarshalYAML writes the full parameter set (Describe), which decodes back to the
// same Config.
func (s Config) MarshalYAML() (any, error) { return s.Describe(), nil }

// TokenText is the inverse of TokenLookup: a token id's text in the model's
// tokenizer (ok false when the id is not in the vocabulary).
type TokenText func(id int32) (text string, ok bool)

// New builds the sampler. lookup resolves Entropix's clarifying token text; it may
// be nil when the spec gives clarifying_token_id or for baselines.
func (s Config) New(lookup TokenLookup) (Sampler, error) { return s.NewResolved(lookup, nil) }

// NewResolved is New; text, when not nil, names the clarifying token given by
// clarifying_token_id, so the sampler's description says which token ran.
func (s Config) NewResolved(lookup TokenLookup, text TokenText) (Sampler, error) {
	if s.Name != "entropix" {
		return NewBaseline(s.Name, s.Params, s.Order)
	}
	c := s.Entropix
	id := int32(c.ClarifyingTokenID)
	resolved := c.ClarifyingToken
	if c.ClarifyingTokenID >= 0 {
		resolved = ""
		if text != nil {
			t, ok := text(id)
			if !ok {
				return nil, fmt.Errorf("sampler entropix: clarifying_token_id %d is not in this tokenizer's vocabulary", id)
			}
			resolved = t
		}
	} else {
		if lookup == nil {
			return nil, fmt.Errorf("sampler entropix: clarifying token %q: no tokenizer to resolve it; set clarifying_token_id", c.ClarifyingToken)
		}
		var ok bool
		if id, ok = lookup(c.ClarifyingToken); !ok {
			return nil, fmt.Errorf("sampler entropix: clarifying token %q %w; set clarifying_token to a token it has, or clarifying_token_id", c.ClarifyingToken, ErrNoClarifyingToken)
		}
	}
	e, err := NewEntropix(c, id)
	if err != nil {
		return nil, err
	}
	e.clarifyText = resolved
	return e, nil
}

// ErrNoClarifyingToken is the error of an Entropix spec whose clarifying token
// text is not one token of the tokenizer; callers that know the tokenizer can
// name the tokens it does have.
var ErrNoClarifyingToken = errors.New("does not exist in this tokenizer's vocabulary")

// Label is the short name traces and tables use ("min_p", "entropix:frog").
func (s Config) Label() string {
	if s.Name == "entropix" {
		return "entropix:" + s.Entropix.Variant
	}
	return s.Name
}

// Describe returns every parameter in effect, for manifests; it decodes back to s.
func (s Config) Describe() map[string]any {
	if s.Name == "entropix" {
		return s.Entropix.Describe()
	}
	return map[string]any{
		"name": s.Name, "temperature": s.Params.Temperature, "top_k": s.Params.TopK,
		"top_p": s.Params.TopP, "min_p": s.Params.MinP, "order": s.Order.String(),
	}
}

// decodeBaseline applies the fields of m over the name's defaults. A single-filter
// name (top_p, min_p, …) accepts another filter's field only at its off value, so a
// label never hides a filter that ran.
func decodeBaseline(name string, m map[string]any) (Params, Order, error) {
	p, ok := baselineDefaults[name]
	if !ok {
		return p, OrderHF, fmt.Errorf("field name: unknown sampler %q%s (want one of %s)", name, suggest.Hint(name, SamplerNames), strings.Join(SamplerNames, ", "))
	}
	order := OrderHF
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var err error
		switch k {
		case "temperature":
			p.Temperature, err = asFloat(k, v)
		case "top_k":
			p.TopK, err = asInt(k, v)
		case "top_p":
			p.TopP, err = asFloat(k, v)
		case "min_p":
			p.MinP, err = asFloat(k, v)
		case "order":
			var s string
			if s, err = asString(k, v); err == nil {
				if order, err = ParseOrder(s); err != nil {
					err = fmt.Errorf("field order: %w", err)
				}
			}
		default:
			err = fmt.Errorf("field %s: unknown for sampler %s%s (fields: temperature, top_k, top_p, min_p, order)", k, name, suggest.Hint(k, []string{"temperature", "top_k", "top_p", "min_p", "order"}))
		}
		if err != nil {
			return p, order, err
		}
	}
	if err := validateParams(p); err != nil {
		return p, order, err
	}
	off := map[string]bool{"top_k": p.TopK == 0, "top_p": p.TopP == 1, "min_p": p.MinP == 0}
	for _, f := range []string{"top_k", "top_p", "min_p"} {
		if name != "combined" && name != f && !off[f] {
			return p, order, fmt.Errorf("field %s: sampler %s does not apply %s; use name: combined", f, name, f)
		}
	}
	if name == "greedy" && p.Temperature != 0 {
		return p, order, fmt.Errorf("field temperature: greedy has temperature 0, got %v", p.Temperature)
	}
	return p, order, nil
}
