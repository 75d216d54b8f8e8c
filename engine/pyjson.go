package engine

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// pyFloat marshals like Python's repr(float), which is what transformers' config
// files contain: 1e-05, 10000.0, 0.02 (Go's encoder would write 0.00001 and 10000).
type pyFloat float64

func (f pyFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	e := strconv.FormatFloat(v, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return []byte(e), nil // Go's 'e' form already matches: 1e-05, 1.5e+16
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return []byte(s), nil
}

// marshalPyJSON writes v as json.dumps(v, indent=2, sort_keys=True) + "\n" does, the
// format of transformers' to_json_file (maps sort their keys in Go too).
func marshalPyJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
