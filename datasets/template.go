package datasets

import (
	"bytes"
	"fmt"
	"github.com/entropix-eval/entropix-eval/hooks"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
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
	// choices is a doc_to_choice given as a YAML list (nil otherwise).
	choices []any

	once sync.Once
	tpl  *exec.Template
	err  error
}

// NewTemplate compiles src lazily; the compile error, if any, surfaces on the
// first render and from Check.
func NewTemplate(key, src string) *Template { return &Template{Source: src, Key: key} }

// Check compiles the template and returns its syntax error.
func (t *Template) Check() error {
	if t == nil || t.port != nil || t.choices != nil {
		return nil
	}
	t.compile()
	return t.err
}

func (t *Template) compile() {
	t.once.Do(func() {
		cfg := config.New()
		cfg.StrictUndefined = true
		cfg.KeepTrailingNewline = true
		fs, err := loaders.NewFileSystemLoader("")
		if err != nil {
			t.err = err
			return
		}
		loader, err := loaders.NewShiftedLoader(t.Key, strings.NewReader(t.Source), fs)
		if err != nil {
			t.err = err
			return
		}
		tpl, err := exec.NewTemplate(t.Key, cfg, loader, gonja.DefaultEnvironment)
		if err != nil {
			t.err = fmt.Errorf("%s: invalid Jinja: %s", t.Key, shortJinjaError(err, t.Source))
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
	if t.choices != nil {
		return t.choices, nil
	}
	if v, ok := d[t.Source]; ok {
		return v, nil
	}
	t.compile()
	if t.err != nil {
		return nil, t.err
	}
	ctx, _ := jinjaValue(d)
	var out bytes.Buffer
	if err := t.tpl.Execute(&out, exec.NewContext(ctx.(Doc))); err != nil {
		return nil, fmt.Errorf("%s: render: %s", t.Key, shortJinjaError(err, t.Source))
	}
	return out.String(), nil
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

func shortJinjaError(err error, source string) string {
	msg := err.Error()
	if source != "" {
		msg = strings.ReplaceAll(msg, "'"+source+"'", "")
	}
	return msg
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
