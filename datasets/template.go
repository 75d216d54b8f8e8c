package datasets

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/jinja"
)

// Template is one doc_to_* value of a task: a Jinja template rendered with
// lm-eval's settings (StrictUndefined, keep_trailing_newline), or, when the
// text is exactly a column name of the doc, that column's raw value.
type Template struct {
	Source string
	// Key names the YAML key it came from, for errors.
	Key string
	// Ref names the Go port of a `!function` doc_to_* (nil for Jinja).
	Ref  *hooks.PortRef
	port *hooks.Port

	once sync.Once
	tpl  *jinja.Template
	err  error
}

// NewTemplate compiles src lazily; the compile error, if any, surfaces on the
// first render and from Check.
func NewTemplate(key, src string) *Template { return &Template{Source: src, Key: key} }

// Check compiles the template and returns its syntax error.
func (t *Template) Check() error {
	if t == nil || t.port != nil {
		return nil
	}
	t.compile()
	return t.err
}

func (t *Template) compile() {
	t.once.Do(func() {
		// lm-eval's settings (StrictUndefined, keep_trailing_newline) in the
		// bounded environment every template renders in (internal/jinja):
		// task files come from anywhere.
		tpl, err := jinja.Compile(t.Source, jinja.Options{Name: t.Key, StrictUndefined: true, KeepTrailingNL: true})
		if err != nil {
			t.err = fmt.Errorf("%s: invalid Jinja: %w", t.Key, err)
			return
		}
		t.tpl = tpl
	})
}

// Render returns the raw column value when Source names a column of d, else
// the rendered text.
func (t *Template) Render(d Doc) (any, error) {
	if t == nil {
		return "", nil
	}
	if t.port != nil {
		s, err := t.port.Text(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Key, err)
		}
		return s, nil
	}
	if err := t.checkNulls(d); err != nil {
		return nil, err
	}
	if v, ok := d[t.Source]; ok {
		return v, nil
	}
	t.compile()
	if t.err != nil {
		return nil, t.err
	}
	ctx, _ := jinjaValue(d)
	out, err := t.tpl.Render(ctx.(Doc))
	if errors.Is(err, jinja.ErrLimit) {
		return nil, fmt.Errorf("%s: %w", t.Key, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: render: %s", t.Key, jinja.ShortError(err, t.Source))
	}
	return out, nil
}

// checkNulls refuses a doc whose NULL column the template names: Jinja would
// print it as "None" (gonja as ""), so a NULL answer became the target "" and
// scored 0 without a word. The same rule as the GSM8K loader, which refuses a
// NULL question or answer; a NULL column the template never names is fine.
// The names are found in the source text, so a template that only tests the
// column (`x is none`) is refused too: the message says which column to fill.
func (t *Template) checkNulls(d Doc) error {
	for k, v := range d {
		if v == nil && mentions(t.Source, k) {
			return fmt.Errorf("%s reads column %q, which is NULL (None) in this doc: %w; fill it in or drop the row", t.Key, k, ErrNull)
		}
	}
	return nil
}

// mentions reports whether name occurs in src as a whole identifier.
func mentions(src, name string) bool {
	ident := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; name != ""; {
		j := strings.Index(src[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !ident(src[start-1])) && (end == len(src) || !ident(src[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

// nonFiniteFloat is a NaN or ±Inf doc value, printed as Jinja prints a
// Python float (nan, inf, -inf) where gonja would print Go's NaN and +Inf. Its
// kind stays float64, so templates still compute and compare with it.
type nonFiniteFloat float64

func (f nonFiniteFloat) String() string { return hooks.PyFloat(float64(f)) }

// jinjaValue is v with its non-finite floats, nested ones included, as
// nonFiniteFloat, and whether it had any; v itself when it has none.
func jinjaValue(v any) (any, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nonFiniteFloat(x), true
		}
	case []any:
		var out []any
		for i, e := range x {
			if w, ok := jinjaValue(e); ok {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = w
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if w, ok := jinjaValue(e); ok {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = w
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// singleVariable matches a template that is one variable expression,
// `{{ a.b.c }}`.
var singleVariable = regexp.MustCompile(`^\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}$`)

// listValue is the list a doc_to_target gives: a column holding a list, or
// a template that is one variable resolving to a list (lm-eval renders its
// repr and literal_evals it back to the same list).
func (t *Template) listValue(d Doc) ([]any, bool, error) {
	if t == nil || t.port != nil {
		return nil, false, nil
	}
	var v any
	if x, ok := d[t.Source]; ok {
		v = x
	} else if m := singleVariable.FindStringSubmatch(t.Source); m != nil {
		v = d
		for _, part := range strings.Split(m[1], ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, false, nil
			}
			if v, ok = obj[part]; !ok {
				return nil, false, nil
			}
		}
	}
	list, ok := v.([]any)
	return list, ok, nil
}

// RenderString renders and converts the result as Python's str() would.
func (t *Template) RenderString(d Doc) (string, error) {
	v, err := t.Render(d)
	if err != nil {
		return "", err
	}
	s := hooks.PyStr(v)
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' && t.Key == "doc_to_target" {
		// lm-eval would ast.literal_eval this into a list of targets
		// (multiple_target). Lists are read straight from the doc when the
		// template is one variable (listValue); parsing rendered Python
		// literals is not implemented.
		return "", fmt.Errorf("%s rendered the list literal %q: multiple targets are supported from a list column or a template that is one variable ({{ answer.aliases }}), not from this template", t.Key, clipText(s, 60))
	}
	return s, nil
}

// asIndex reads an int target: an integer value or a digit string (lm-eval
// literal_evals digit strings when doc_to_choice is set).
func asIndex(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		return i, err == nil && strings.TrimSpace(x) != "" && !strings.HasPrefix(strings.TrimSpace(x), "-")
	}
	return 0, false
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
