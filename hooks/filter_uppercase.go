package hooks

// uppercase (lm_eval/filters/transformation.py UppercaseFilter).
func init() {
	registerFilter(Filter{Name: "uppercase", New: func(map[string]any) (FilterFunc, error) {
		return mapEach(func(s string) (string, error) { return PyUpper(s), nil }), nil
	}})
}
