package datasets

import (
	"encoding/json"
	"fmt"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// EncodeDoc writes d as one JSON object with its keys, and those of its
// nested structs, in fields' order, then any others sorted, its values as
// Python's json.dumps writes them: floats keep a decimal point (2.0), so
// DecodeDoc gives back each number's kind, as Python's json would, and the
// non-finite ones a Parquet or Arrow float column can hold are NaN, Infinity
// and -Infinity, which strict JSON has no form for.
func EncodeDoc(d Doc, fields Fields) ([]byte, error) {
	return appendJSONValue(nil, d, fields)
}

// EncodeValue writes one doc value as EncodeDoc writes it inside a doc; nil
// fields sort a struct's keys.
func EncodeValue(v any, fields Fields) ([]byte, error) {
	return appendJSONValue(nil, v, fields)
}

// DecodeDoc reads one JSON object as Python's json.loads does (NaN,
// Infinity and -Infinity included) as a Doc: integral numbers int64, others
// float64. null is a nil Doc.
func DecodeDoc(b []byte) (Doc, error) {
	v, err := pyjson.Decode(b)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case *pyjson.Dict:
		return docValue(x).(Doc), nil
	}
	return nil, fmt.Errorf("want a JSON object, got %T", v)
}

// docValue turns Decode's values into a Doc's: objects maps, numbers int64
// when integral and float64 otherwise.
func docValue(v any) any {
	switch x := v.(type) {
	case *pyjson.Dict:
		m := make(Doc, x.Len())
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			m[k] = docValue(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = docValue(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64() // out of range: ±Inf, as Python reads 1e400
		return f
	}
	return v
}
