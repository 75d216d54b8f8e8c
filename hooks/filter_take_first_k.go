package hooks

import "fmt"

// take_first_k (lm_eval/filters/selection.py TakeKFilter): the first k responses.
func init() {
	registerFilter(Filter{Name: "take_first_k", Params: []string{"k"}, New: func(params map[string]any) (FilterFunc, error) {
		k, err := intParam(params, "k", -1)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("k: want a positive integer")
		}
		return func(v Values, _ map[string]any) (Values, error) {
			if len(v.Items) < k {
				// lm-eval asserts this: "Please increase TaskConfig.repeats".
				return Values{}, fmt.Errorf("take_first_k: need at least %d responses per doc, have %d (increase repeats)", k, len(v.Items))
			}
			return Values{Items: v.Items[:k]}, nil
		}, nil
	}})
}
