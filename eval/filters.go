package eval

// Filter pipelines, lm-eval style (lm_eval/filters/*.py): a task's
// filter_list entry is a chain of functions over one doc's responses (all its
// repeats, in order). Each function here follows the upstream class of the
// same name; extract.go holds the regex filters.

import (
	"fmt"
	"math"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// filterValue is what flows through a pipeline: a doc's list of responses, or
// one answer once take_first has picked it (lm-eval then holds a str).
type filterValue struct {
	items  []string
	single bool
}

type filterFunc func(v filterValue, doc datasets.Doc) (filterValue, error)

// Pipeline is one compiled filter_list entry.
type Pipeline struct {
	Name  string
	steps []filterFunc
}

// CompilePipeline builds a pipeline from its task data.
func CompilePipeline(p datasets.FilterPipeline) (*Pipeline, error) {
	out := &Pipeline{Name: p.Name}
	for i, s := range p.Steps {
		f, err := compileStep(s)
		if err != nil {
			return nil, fmt.Errorf("filter %s step %d (%s): %w", p.Name, i, s.Function, err)
		}
		out.steps = append(out.steps, f)
	}
	return out, nil
}

// Apply runs the pipeline on one doc's responses. The result has one answer
// per response while every step keeps the list, or one answer for the doc
// once a step (take_first, majority_vote + take_first) reduced it.
func (p *Pipeline) Apply(responses []string, doc datasets.Doc) (answers []string, perDoc bool, err error) {
	v := filterValue{items: responses}
	for _, f := range p.steps {
		if v, err = f(v, doc); err != nil {
			return nil, false, fmt.Errorf("filter %s: %w", p.Name, err)
		}
	}
	return v.items, v.single, nil
}

// mapEach applies f to every response (lm-eval's per-response filters).
func mapEach(f func(string) (string, error)) filterFunc {
	return func(v filterValue, _ datasets.Doc) (filterValue, error) {
		out := filterValue{items: make([]string, len(v.items)), single: v.single}
		for i, s := range v.items {
			r, err := f(s)
			if err != nil {
				return filterValue{}, err
			}
			out.items[i] = r
		}
		return out, nil
	}
}

func compileStep(s datasets.FilterStep) (filterFunc, error) {
	switch s.Function {
	case "regex":
		rf, err := regexFilterFrom(s.Params)
		if err != nil {
			return nil, err
		}
		return mapEach(rf.ApplyErr), nil
	case "multi_choice_regex":
		return multiChoiceFrom(s.Params)
	case "take_first":
		return func(v filterValue, _ datasets.Doc) (filterValue, error) {
			if len(v.items) == 0 {
				return filterValue{}, fmt.Errorf("take_first: no responses")
			}
			return filterValue{items: v.items[:1], single: true}, nil
		}, nil
	case "take_first_k":
		k, err := intParam(s.Params, "k", -1)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("k: want a positive integer")
		}
		return func(v filterValue, _ datasets.Doc) (filterValue, error) {
			if len(v.items) < k {
				// lm-eval asserts this: "Please increase TaskConfig.repeats".
				return filterValue{}, fmt.Errorf("take_first_k: need at least %d responses per doc, have %d (increase repeats)", k, len(v.items))
			}
			return filterValue{items: v.items[:k]}, nil
		}, nil
	case "majority_vote":
		return func(v filterValue, _ datasets.Doc) (filterValue, error) {
			return filterValue{items: []string{majority(v.items)}}, nil
		}, nil
	case "remove_whitespace":
		return mapEach(func(s string) (string, error) { return pyStrip(s), nil }), nil
	case "lowercase":
		return mapEach(func(s string) (string, error) { return pyLower(s), nil }), nil
	case "uppercase":
		return mapEach(func(s string) (string, error) { return pyUpper(s), nil }), nil
	case "map":
		m, ok := s.Params["mapping_dict"].(map[string]any)
		if _, given := s.Params["mapping_dict"]; given && !ok {
			return nil, fmt.Errorf("mapping_dict: want a mapping")
		}
		def := ""
		if d, ok := s.Params["default_value"]; ok && d != nil {
			def = pyStrValue(d)
		}
		return mapEach(func(s string) (string, error) {
			if v, ok := m[s]; ok {
				return pyStrValue(v), nil
			}
			return def, nil
		}), nil
	}
	return nil, fmt.Errorf("unknown filter function %q", s.Function)
}

// majority is lm-eval's Counter(resps).most_common(1)[0][0]: the most
// frequent answer, ties going to the one seen first.
func majority(items []string) string {
	counts := map[string]int{}
	best, bestN := "", 0
	for _, s := range items {
		counts[s]++
	}
	for _, s := range items {
		if n := counts[s]; n > bestN {
			best, bestN = s, n
		}
	}
	return best
}

// intParam reads an integer keyword argument (YAML int, or a JSON number
// read back from a manifest).
func intParam(params map[string]any, key string, def int) (int, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int:
		return x, nil
	case float64:
		if x == math.Trunc(x) {
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("%s: want an integer, got %v", key, v)
}

func strParam(params map[string]any, key, def string) (string, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %v", key, v)
	}
	return s, nil
}

func boolParam(params map[string]any, key string) (bool, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: want true or false, got %v", key, v)
	}
	return b, nil
}

// pyStrValue is str() of a filter argument: a YAML scalar, or the same value
// read back from a manifest's JSON, where an integer became a float64.
func pyStrValue(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		v = int64(f)
	}
	return datasets.PyStr(v)
}

// pyUpper is Python's str.upper() for the cases that matter in practice
// (ß becomes "SS"; Go has no single-rune upper case for it).
func pyUpper(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "ß", "SS")) }
