package hooks

import (
	"fmt"
	"math"
)

// intParam reads an integer keyword argument (YAML int, or a JSON number
// read back from a manifest).
func intParam(params map[string]any, key string, def int) (int, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int:
		return x, nil
	case float64:
		if x == math.Trunc(x) {
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("%s: want an integer, got %v", key, v)
}

func strParam(params map[string]any, key, def string) (string, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %v", key, v)
	}
	return s, nil
}

func boolParam(params map[string]any, key string) (bool, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: want true or false, got %v", key, v)
	}
	return b, nil
}

// strListParam reads a list of strings (regexes_to_ignore).
func strListParam(params map[string]any, key string) ([]string, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list", key)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = PyStrValue(e)
	}
	return out, nil
}

// PyStrValue is str() of a YAML scalar or the same value read back from a
// manifest's JSON, where an integer became a float64.
func PyStrValue(v any) string {
	if x, ok := v.(float64); ok && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		v = int64(x)
	}
	return PyStr(v)
}
