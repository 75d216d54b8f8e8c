package datasets

import (
	"bytes"
	"encoding/json"
)

// presentColumns is cols less the ones d lacks.
func presentColumns(cols []string, d Doc) []string {
	var out []string
	for _, c := range cols {
		if _, ok := d[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// EncodeDoc writes d as one JSON object with its keys in cols' order, then
// any others sorted (nested objects sorted). Floats keep a decimal point (2.0),
// so DecodeDoc gives back each number's kind, as Python's json would.
func EncodeDoc(d Doc, cols []string) ([]byte, error) {
	return appendJSONValue(nil, orderedDoc{d, DocColumns([]Doc{d}, presentColumns(cols, d))})
}

// orderedDoc is a doc with its key order, for appendJSONValue.
type orderedDoc struct {
	doc  Doc
	keys []string
}

// DecodeDoc reads one JSON object as a Doc: integral numbers int64, others
// float64.
func DecodeDoc(b []byte) (Doc, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var d Doc
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	return jsonNumbers(d).(Doc), nil
}
