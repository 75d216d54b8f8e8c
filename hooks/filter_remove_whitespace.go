package hooks

// remove_whitespace (lm_eval/filters/extraction.py WhitespaceFilter): each
// response with Python's str.strip() applied.
func init() {
	registerFilter(Filter{Name: "remove_whitespace", New: func(map[string]any) (FilterFunc, error) {
		return mapEach(func(s string) (string, error) { return PyStrip(s), nil }), nil
	}})
}
