package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// fileColumns is a data file's column order, as Hugging Face datasets (and so
// lm-eval's docs, and the json.dumps behind its doc_hash) keep it: the Parquet
// or Arrow schema's field order, the CSV header, a JSONL file's first-line key
// order. Nil when the file does not say, and the doc's keys then sort.
func fileColumns(path string) []string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		fh, size, err := openSized(path)
		if err != nil {
			return nil
		}
		defer fh.Close()
		f, err := OpenParquet(path, fh, size)
		if err != nil {
			return nil
		}
		var cols []string
		for _, field := range f.Schema().Fields() {
			cols = append(cols, field.Name())
		}
		return cols
	case ".csv":
		fh, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer fh.Close()
		br := bufio.NewReader(fh)
		if bom, _ := br.Peek(len(utf8BOM)); bytes.Equal(bom, utf8BOM) {
			_, _ = br.Discard(len(utf8BOM))
		}
		header, err := csv.NewReader(br).Read()
		if err != nil {
			return nil
		}
		return header
	case ".jsonl", ".ndjson":
		fh, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer fh.Close()
		br := bufio.NewReaderSize(fh, 1<<16)
		if bom, _ := br.Peek(len(utf8BOM)); bytes.Equal(bom, utf8BOM) {
			_, _ = br.Discard(len(utf8BOM))
		}
		return firstObjectKeys(json.NewDecoder(br))
	case ".arrow":
		fh, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer fh.Close()
		var cols []string
		if r, err := ipc.NewFileReader(fh); err == nil {
			for _, f := range r.Schema().Fields() {
				cols = append(cols, f.Name)
			}
			r.Close()
			return cols
		}
		if _, err := fh.Seek(0, 0); err != nil {
			return nil
		}
		r, err := ipc.NewReader(fh)
		if err != nil {
			return nil
		}
		defer r.Release()
		for _, f := range r.Schema().Fields() {
			cols = append(cols, f.Name)
		}
		return cols
	}
	return nil
}

// firstObjectKeys reads the first JSON object's top-level keys in order.
func firstObjectKeys(dec *json.Decoder) []string {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}

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
