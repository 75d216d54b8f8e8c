package sampler

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Spec is one sampler as the user wrote it — a name (with a flag's ":variant" or
// ":order" suffix, as written) and its fields, e.g. {name: min_p, temperature: 1.0,
// min_p: 0.1} — the one form every spelling reduces to: a --sampler value
// (ParseSpec), a --samplers list (ParseSpecs), a sweep file (UnmarshalYAML), a
// manifest (UnmarshalJSON) and lm-eval's --gen_kwargs (eval.SamplerFromGenKwargs).
// Its label and JSON are derived from it as written; Config validates it into the
// sampler's configuration. Callers outside this package treat it as opaque.
type Spec struct {
	Name string
	// Label names the sampler in results; defaults to Name plus its sorted parameters.
	Label  string
	Params map[string]any
}

// ParseSpecs parses the flag form: comma-separated samplers, each a name
// followed by its field=value settings, e.g.
// "greedy,min_p,min_p=0.05,temperature=1.5,entropix:frog" is three samplers. Values
// are YAML scalars, as in a sweep file.
func ParseSpecs(s string) ([]Spec, error) {
	if !utf8.ValidString(s) {
		// Names and labels become JSON, file and column values; never mangle them.
		return nil, fmt.Errorf("sampler list %q: not valid UTF-8", s)
	}
	var specs []Spec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("sampler list %q: empty entry", s)
		}
		k, v, isField := strings.Cut(part, "=")
		if !isField {
			specs = append(specs, Spec{Name: part})
			continue
		}
		if len(specs) == 0 {
			return nil, fmt.Errorf("sampler list %q: %q comes before any sampler name", s, part)
		}
		cur := &specs[len(specs)-1]
		k = strings.TrimSpace(k)
		if k == "" || k == "name" {
			return nil, fmt.Errorf("sampler list %q: %q is not field=value", s, part)
		}
		var val any
		if err := yaml.Unmarshal([]byte(v), &val); err != nil {
			return nil, fmt.Errorf("sampler list %q: field %s: %w", s, k, err)
		}
		switch val.(type) {
		case map[string]any, map[any]any, []any:
			return nil, fmt.Errorf("sampler list %q: field %s: %q is not a single value (a number, string or boolean)", s, k, v)
		}
		if _, dup := cur.Params[k]; dup || (k == "label" && cur.Label != "") {
			return nil, fmt.Errorf("sampler list %q: field %s given twice for %s", s, k, cur.Name)
		}
		if k == "label" {
			cur.Label = fmt.Sprint(val)
			continue
		}
		if cur.Params == nil {
			cur.Params = map[string]any{}
		}
		cur.Params[k] = normalizeNumber(val)
	}
	return specs, nil
}

// DisplayLabel is the label results use: the explicit one, or name(k=v,...) with the
// parameters sorted so equal specs get equal labels.
func (s Spec) DisplayLabel() string {
	if s.Label != "" {
		return s.Label
	}
	if len(s.Params) == 0 {
		return s.Name
	}
	keys := make([]string, 0, len(s.Params))
	for k := range s.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + formatParam(s.Params[k])
	}
	return s.Name + "(" + strings.Join(parts, ",") + ")"
}

func formatParam(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// UnmarshalYAML accepts a bare name ("greedy") or a mapping with a name key.
func (s *Spec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var name string
		if err := n.Decode(&name); err != nil {
			return err
		}
		*s = Spec{Name: name}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a sampler is a name or a mapping with a name key", n.Line)
	}
	var raw map[string]any
	if err := n.Decode(&raw); err != nil {
		return err
	}
	return s.fromMap(raw, fmt.Sprintf("line %d", n.Line))
}

func (s *Spec) fromMap(raw map[string]any, where string) error {
	out := Spec{Params: map[string]any{}}
	for k, v := range raw {
		switch k {
		case "name":
			name, ok := v.(string)
			if !ok || name == "" {
				return fmt.Errorf("%s: sampler name must be a non-empty string", where)
			}
			out.Name = name
		case "label":
			label, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s: sampler label must be a string", where)
			}
			out.Label = label
		default:
			out.Params[k] = normalizeNumber(v)
		}
	}
	if out.Name == "" {
		return fmt.Errorf("%s: sampler has no name", where)
	}
	if len(out.Params) == 0 {
		out.Params = nil
	}
	*s = out
	return nil
}

// normalizeNumber makes YAML ints and JSON float64s the same value, so a spec read
// back from manifest.json equals the one parsed from the sweep file.
func normalizeNumber(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}

// MarshalJSON writes the flat form {name, label?, params...} the YAML file uses.
func (s Spec) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(s.Params)+2)
	for k, v := range s.Params {
		m[k] = v
	}
	m["name"] = s.Name
	if s.Label != "" {
		m["label"] = s.Label
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	return s.fromMap(raw, "sampler")
}

// ParseSpec parses one --sampler value: NAME or NAME:VARIANT, then optionally fields
// after ':' or ',' (NAME:VARIANT:FIELDS, NAME:FIELDS, or NAME:VARIANT,FIELDS), the
// fields being field=value pairs separated by commas with YAML scalar values, e.g.
// "min_p:temperature=0.7,min_p=0.1", "entropix:frog,faithful=true". One value is
// exactly one sampler: anything that would read as a second one is an error, never a
// silently dropped part.
func ParseSpec(s string) (Spec, error) {
	name, fields := s, ""
	if i := strings.IndexByte(s, '='); i >= 0 {
		j := strings.LastIndexAny(s[:i], ":,")
		if j < 0 {
			return Spec{}, fmt.Errorf("%q: write NAME:FIELD=VALUE,... (e.g. min_p:min_p=0.1)", s)
		}
		name, fields = s[:j], s[j+1:]
	}
	if strings.TrimSpace(name) == "" || strings.Contains(name, ",") {
		return Spec{}, fmt.Errorf("%q: want NAME[:VARIANT][:FIELD=VALUE,...]", s)
	}
	list := name
	if fields != "" {
		list += "," + fields
	}
	specs, err := ParseSpecs(list)
	if err != nil {
		return Spec{}, err
	}
	if len(specs) != 1 {
		return Spec{}, fmt.Errorf("%q reads as %d samplers; give each its own --sampler", s, len(specs))
	}
	return specs[0], nil
}

// Config validates s into the sampler's configuration: the name's suffix is the
// Entropix variant or the order of "combined", the fields are checked against the
// sampler's (an unknown or out-of-range field is an error naming it).
func (s Spec) Config() (Config, error) {
	m := maps.Clone(s.Params)
	if m == nil {
		m = map[string]any{}
	}
	head, suffix, ok := strings.Cut(s.Name, ":")
	head, suffix = strings.TrimSpace(head), strings.TrimSpace(suffix)
	m["name"] = head
	if ok {
		field := map[string]string{"entropix": "variant", "combined": "order"}[head]
		if field == "" {
			return Config{}, fmt.Errorf("sampler %q: only entropix:<variant> and combined:<order> take a ':' suffix", s.Name)
		}
		if _, dup := m[field]; dup {
			return Config{}, fmt.Errorf("sampler %q: field %s given twice (the suffix and %s=)", s.Name, field, field)
		}
		m[field] = suffix
	}
	return ParseConfig(m)
}

// ParseFlag parses one --sampler value (ParseSpec) and validates it (Spec.Config).
func ParseFlag(s string) (Config, error) {
	spec, err := ParseSpec(strings.TrimSpace(s))
	if err != nil {
		return Config{}, fmt.Errorf("sampler flag: %w", err)
	}
	c, err := spec.Config()
	if err != nil {
		return Config{}, fmt.Errorf("sampler flag %q: %w", s, err)
	}
	return c, nil
}
