package hooks

// lowercase (lm_eval/filters/transformation.py LowercaseFilter).
func init() {
	registerFilter(Filter{Name: "lowercase", New: func(map[string]any) (FilterFunc, error) {
		return mapEach(func(s string) (string, error) { return PyLower(s), nil }), nil
	}})
}
