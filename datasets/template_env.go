package datasets

import (
	"encoding/json"
	"fmt"
	"regexp"
)

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
