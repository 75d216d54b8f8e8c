package datasets

import (
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// GoldNone is lm-eval's gold index for a target that names no choice.
const GoldNone = -100

// Gold is the index of doc's right choice as multiple_choice's
// process_results finds it: an index target as it is (GoldNone past the
// choices), a string target by its position among the choices (GoldNone when
// absent; lm-eval warns and scores the doc 0).
func (t *Task) Gold(d Doc) (int, error) {
	v, err := docTarget(t.DocToTarget, d)
	if err != nil {
		return 0, err
	}
	choices, err := t.Choices(d)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int:
		if x >= len(choices) {
			return GoldNone, nil
		}
		if x < 0 {
			return 0, fmt.Errorf("doc_to_target: negative index %d", x)
		}
		return x, nil
	case string:
		for i, c := range choices {
			if c == x {
				return i, nil
			}
		}
		return GoldNone, nil
	}
	return 0, fmt.Errorf("doc_to_target: want an index or a string")
}

// docTarget is lm-eval's doc_to_target for a task with doc_to_choice: a
// column's value as it is (an int stays an index, a string a choice text), a
// rendered template's digits an index, any other text a string. A list
// (multiple targets) is refused.
func docTarget(tpl *Template, d Doc) (any, error) {
	if tpl == nil {
		return "", nil
	}
	if v, ok := d[tpl.Source]; ok {
		switch x := v.(type) {
		case int64:
			return int(x), nil
		case string:
			return x, nil
		}
		return nil, fmt.Errorf("doc_to_target: column %s holds %s; want an index or a string", tpl.Source, kindOf(v))
	}
	v, err := tpl.Render(d)
	if err != nil {
		return nil, err
	}
	s := hooks.PyStr(v)
	if isDigits(s) {
		i, ok := asIndex(s)
		if !ok {
			return nil, fmt.Errorf("doc_to_target: index %q out of range", s)
		}
		return i, nil
	}
	if len(s) >= 2 && strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("doc_to_target rendered the list literal %q: multiple targets are not supported", clipText(s, 60))
	}
	return s, nil
}

// isDigits is Python's str.isdigit for ASCII text: non-empty, digits only.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
