package engine

import (
	"bytes"
	"encoding/json"

	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
)

// pyFloat marshals like Python's repr(float), which is what transformers' config
// files contain: 1e-05, 10000.0, 0.02 (Go's encoder would write 0.00001 and 10000).
type pyFloat float64

func (f pyFloat) MarshalJSON() ([]byte, error) {
	return []byte(pyfloat.Repr(float64(f))), nil
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
