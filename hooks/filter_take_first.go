package hooks

import "fmt"

// take_first (lm_eval/filters/selection.py TakeFirstFilter): the doc's first
// response, as one answer for the doc.
func init() {
	registerFilter(Filter{Name: "take_first", New: func(map[string]any) (FilterFunc, error) {
		return func(v Values, _ map[string]any) (Values, error) {
			if len(v.Items) == 0 {
				return Values{}, fmt.Errorf("take_first: no responses")
			}
			return Values{Items: v.Items[:1], Single: true}, nil
		}, nil
	}})
}
