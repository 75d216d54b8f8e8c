package datasets

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/internal/jinja"
	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
)

// Template is one doc_to_* value of a task: a Jinja template rendered with
// lm-eval's settings (StrictUndefined, keep_trailing_newline), or, when the
// text is exactly a column name of the doc, that column's raw value.
type Template struct {
	Source string
	// Key names the YAML key it came from, for errors.
	Key string

	once sync.Once
	tpl  *jinja.Template
	err  error
}

// NewTemplate compiles src lazily; the compile error, if any, surfaces on the
// first render and from Check.
func NewTemplate(key, src string) *Template { return &Template{Source: src, Key: key} }

// Check compiles the template and returns its syntax error.
func (t *Template) Check() error {
	if t == nil {
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

func (f nonFiniteFloat) String() string { return pyFloat(float64(f)) }

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

// RenderString renders and converts the result as Python's str() would.
func (t *Template) RenderString(d Doc) (string, error) {
	v, err := t.Render(d)
	if err != nil {
		return "", err
	}
	s := PyStr(v)
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' && t.Key == "doc_to_target" {
		// lm-eval would ast.literal_eval this into a list of targets
		// (multiple_target); that scoring mode is not implemented.
		return "", fmt.Errorf("%s rendered the list literal %q: multiple targets are not supported", t.Key, clipText(s, 60))
	}
	return s, nil
}

// PyStr is Python's str() for the Doc value kinds (and YAML scalars).
func PyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return pyFloat(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			parts = append(parts, pyRepr(k)+": "+pyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
	}
	return PyStr(v)
}

// pyFloat is Python's str(float), as Jinja prints a float doc field.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return pyfloat.Repr(f)
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
