package rundir

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SamplerSpec is one sampler of a sweep as the user wrote it: a name and its
// parameters, e.g. {name: min_p, temperature: 1.0, min_p: 0.1}. The eval package does
// not interpret the parameters; the sampler package validates and builds them (see
// SamplerResolver), so a new sampler needs no change here.
type SamplerSpec struct {
	Name string
	// Label names the sampler in results; defaults to Name plus its sorted parameters.
	Label  string
	Params map[string]any
}

// ParseSamplerList parses the flag form: comma-separated samplers, each a name
// followed by its field=value settings, e.g.
// "greedy,min_p,min_p=0.05,temperature=1.5,entropix:frog" is three samplers. Values
// are YAML scalars, as in a sweep file.
func ParseSamplerList(s string) ([]SamplerSpec, error) {
	var specs []SamplerSpec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("sampler list %q: empty entry", s)
		}
		k, v, isField := strings.Cut(part, "=")
		if !isField {
			specs = append(specs, SamplerSpec{Name: part})
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
func (s SamplerSpec) DisplayLabel() string {
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
func (s *SamplerSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var name string
		if err := n.Decode(&name); err != nil {
			return err
		}
		*s = SamplerSpec{Name: name}
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

func (s *SamplerSpec) fromMap(raw map[string]any, where string) error {
	out := SamplerSpec{Params: map[string]any{}}
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
func (s SamplerSpec) MarshalJSON() ([]byte, error) {
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
func (s *SamplerSpec) UnmarshalJSON(b []byte) error {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	return s.fromMap(raw, "sampler")
}
