package datasets

import (
	"bytes"
	"encoding/json"
)

// EncodeDoc writes d as one JSON object with its keys, and those of its
// nested structs, in fields' order, then any others sorted. Floats keep a
// decimal point (2.0), so DecodeDoc gives back each number's kind, as
// Python's json would.
func EncodeDoc(d Doc, fields Fields) ([]byte, error) {
	return appendJSONValue(nil, d, fields)
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
