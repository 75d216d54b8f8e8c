package datasets

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// taskEnv is gonja's default environment plus the Python list method
// lm-eval's templates call that gonja lacks: list.index (ARC's doc_to_target
// is "{{choices.label.index(answerKey)}}").
var taskEnv = func() *exec.Environment {
	env := *gonja.DefaultEnvironment
	methods := map[string]exec.Method[[]any]{"index": listIndex}
	for _, name := range []string{"append", "reverse", "copy"} {
		if m, ok := env.Methods.List.Get(name); ok {
			methods[name] = m
		}
	}
	env.Methods.List = exec.NewMethodSet(methods)
	return &env
}()

// listIndex is Python's list.index(x): the first position holding a value
// equal to x (numbers compare by value), an error when there is none.
func listIndex(self []any, _ *exec.Value, arguments *exec.VarArgs) (any, error) {
	var x any
	if err := arguments.Take(exec.PositionalArgument("x", nil, exec.AnyArgument(&x))); err != nil {
		return nil, exec.ErrInvalidCall(err)
	}
	want := exec.ToValue(x)
	for i, e := range self {
		if exec.ToValue(e).EqualValueTo(want) {
			return i, nil
		}
	}
	return nil, fmt.Errorf("%s is not in list", PyStr(x))
}

// singleExpr matches a template that is one {{ expression }} and nothing else.
var singleExpr = regexp.MustCompile(`^\s*\{\{(.*)\}\}\s*$`)

// RenderValue evaluates a template to a Python value, as lm-eval's
// ast.literal_eval of the rendered text gives it: a column name's raw value,
// or the value of a template that is a single {{ expression }} (evaluated
// through tojson, so strings holding quotes survive, which gonja's list
// printing does not escape). Other templates render to their text.
func (t *Template) RenderValue(d Doc) (any, error) {
	if t == nil {
		return "", nil
	}
	if v, ok := d[t.Source]; ok {
		return v, nil
	}
	m := singleExpr.FindStringSubmatch(t.Source)
	if m == nil {
		return t.Render(d)
	}
	js := NewTemplate(t.Key, "{{ ("+m[1]+") | tojson }}")
	text, err := js.Render(d)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal([]byte(text.(string)), &v); err != nil {
		return nil, fmt.Errorf("%s: evaluate %q: %w", t.Key, t.Source, err)
	}
	return v, nil
}
