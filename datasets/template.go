package datasets

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
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

	once sync.Once
	tpl  *exec.Template
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
		tpl, err := exec.NewTemplate(t.Key, cfg, loader, taskEnv)
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

func shortJinjaError(err error, source string) string {
	msg := err.Error()
	if source != "" {
		msg = strings.ReplaceAll(msg, "'"+source+"'", "")
	}
	return msg
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
