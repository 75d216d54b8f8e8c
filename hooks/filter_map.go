package hooks

import "fmt"

// map (lm_eval/filters/transformation.py MapFilter): each response looked up
// in mapping_dict, default_value (None, written as "") when absent.
func init() {
	registerFilter(Filter{Name: "map", Params: []string{"mapping_dict", "default_value"}, New: func(params map[string]any) (FilterFunc, error) {
		m, ok := params["mapping_dict"].(map[string]any)
		if _, given := params["mapping_dict"]; given && !ok {
			return nil, fmt.Errorf("mapping_dict: want a mapping")
		}
		def := ""
		if d, ok := params["default_value"]; ok && d != nil {
			def = PyStrValue(d)
		}
		return mapEach(func(s string) (string, error) {
			if v, ok := m[s]; ok {
				return PyStrValue(v), nil
			}
			return def, nil
		}), nil
	}})
}
