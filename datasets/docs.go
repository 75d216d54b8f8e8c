package datasets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/parquet-go/parquet-go"
)

// Doc is one dataset row as lm-eval's templates see it: column name to value.
// Values are string, int64, float64, bool, nil (NULL), []any (lists) and
// map[string]any (structs), whatever the file format.
type Doc = map[string]any

// LoadDocs reads every file matching pattern (.parquet, .jsonl, .csv or a
// Hugging Face datasets-cache .arrow stream) in sorted path order, keeping every column
// of every row: the input of task YAML templates. Index and ID are the doc id
// (the row index across the sorted files), as in Load.
func LoadDocs(pattern string) (*Dataset, error) {
	paths, err := matchFiles(pattern)
	if err != nil {
		return nil, err
	}
	return loadDocFiles(paths)
}

// matchFiles expands a path or glob into sorted paths, or says why nothing matched.
func matchFiles(pattern string) ([]string, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", pattern, err)
	}
	if len(paths) == 0 {
		if _, statErr := os.Stat(pattern); statErr != nil && !hasMeta(pattern) {
			return nil, fmt.Errorf("load %s: %w", pattern, statErr)
		}
		return nil, fmt.Errorf("load %s: no files match", pattern)
	}
	slices.Sort(paths)
	return paths, nil
}

// maxDocFileBytes bounds one JSONL or CSV data file read into memory; Parquet and
// Arrow files are read through their own bounded readers.
const maxDocFileBytes = 4 << 30

func loadDocFile(path string) ([]Doc, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return readParquetDocs(path)
	case ".jsonl", ".ndjson":
		b, err := readBoundedFile(path)
		if err != nil {
			return nil, err
		}
		return parseJSONLDocs(path, b)
	case ".csv":
		b, err := readBoundedFile(path)
		if err != nil {
			return nil, err
		}
		return parseCSVDocs(path, b)
	case ".arrow":
		return readArrowDocs(path)
	}
	return nil, fmt.Errorf("%s: %w (want .parquet, .jsonl, .csv or .arrow)", path, ErrFormat)
}

// readBoundedFile reads a text data file whole, up to maxDocFileBytes.
func readBoundedFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxDocFileBytes {
		return nil, fmt.Errorf("%s: %d bytes is more than the %d a text data file may hold", path, st.Size(), int64(maxDocFileBytes))
	}
	return os.ReadFile(path)
}

// readParquetDocs reconstructs every row with parquet-go's schema-driven
// reconstruction, which keeps NULLs as nil and nested lists and structs as
// []any and map[string]any.
func readParquetDocs(path string) (_ []Doc, err error) {
	defer recoverCorrupt(path, &err)
	fh, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := OpenParquet(path, fh, size)
	if err != nil {
		return nil, err
	}
	schema := f.Schema()
	out := make([]Doc, 0, min(f.NumRows(), 1<<16))
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				d := Doc{}
				if err := schema.Reconstruct(&d, r); err != nil {
					rows.Close()
					return nil, fmt.Errorf("%s: row %d: %w", path, len(out), err)
				}
				out = append(out, normalizeValues(d).(Doc))
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: row %d: %w", path, len(out), err)
			}
		}
		rows.Close()
	}
	return out, nil
}

// normalizeValues maps the integer and float widths readers produce onto
// int64 and float64, so templates see one type per kind.
func normalizeValues(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeValues(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeValues(e)
		}
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	}
	return v
}

// parseJSONLDocs decodes one JSON object a line, every key kept; integral
// numbers become int64 and others float64.
func parseJSONLDocs(name string, data []byte) ([]Doc, error) {
	var out []Doc
	err := eachJSONLLine(name, data, func(line []byte) error {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var d Doc
		if err := dec.Decode(&d); err != nil || d == nil {
			return fmt.Errorf("%w: want one JSON object (%v)", ErrSyntax, err)
		}
		out = append(out, jsonNumbers(d).(Doc))
		return nil
	})
	return out, err
}

func jsonNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// readArrowDocs reads a Hugging Face datasets cache file: an Arrow IPC stream
// (what datasets' ArrowWriter writes), or an IPC file.
func readArrowDocs(path string) (_ []Doc, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt Arrow data (%v)", path, p)
		}
	}()
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var head [6]byte
	if _, err := io.ReadFull(fh, head[:]); err == nil && string(head[:]) == "ARROW1" {
		st, err := fh.Stat()
		if err != nil {
			return nil, err
		}
		r, err := ipc.NewFileReader(fh)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer r.Close()
		_ = st
		var out []Doc
		for i := 0; i < r.NumRecords(); i++ {
			rec, err := r.Record(i)
			if err != nil {
				return nil, fmt.Errorf("%s: record batch %d: %w", path, i, err)
			}
			out = appendRecordDocs(out, rec)
		}
		return out, nil
	}
	if err := checkStreamHead(path, fh); err != nil {
		return nil, err
	}
	r, err := ipc.NewReader(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: not an Arrow IPC stream or file: %w", path, err)
	}
	defer r.Release()
	var out []Doc
	for r.Next() {
		out = appendRecordDocs(out, r.Record())
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// checkStreamHead refuses a stream whose first message claims more metadata
// than the file holds: arrow-go allocates the claimed length before reading,
// so 8 bytes of garbage would cost 2 GiB. It leaves fh at the start.
func checkStreamHead(path string, fh *os.File) error {
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	var head [8]byte
	if _, err := fh.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("%s: not an Arrow IPC stream: %w", path, err)
	}
	n := int64(binary.LittleEndian.Uint32(head[:4]))
	if n == 0xFFFFFFFF { // continuation marker, then the length
		n = int64(int32(binary.LittleEndian.Uint32(head[4:])))
	}
	if n < 0 || n > st.Size() {
		return fmt.Errorf("%s: not an Arrow IPC stream: first message claims %d bytes of a %d-byte file", path, n, st.Size())
	}
	_, err = fh.Seek(0, io.SeekStart)
	return err
}

func appendRecordDocs(out []Doc, rec arrow.Record) []Doc {
	n := int(rec.NumRows())
	for i := range n {
		d := make(Doc, rec.NumCols())
		for c := 0; c < int(rec.NumCols()); c++ {
			d[rec.ColumnName(c)] = arrowValue(rec.Column(c), i)
		}
		out = append(out, d)
	}
	return out
}

// arrowValue converts cell i of a to the Doc value kinds.
func arrowValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.String:
		return x.Value(i)
	case *array.LargeString:
		return x.Value(i)
	case *array.Binary:
		return string(x.Value(i))
	case *array.Boolean:
		return x.Value(i)
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.Uint8:
		return int64(x.Value(i))
	case *array.Uint16:
		return int64(x.Value(i))
	case *array.Uint32:
		return int64(x.Value(i))
	case *array.Uint64:
		return int64(x.Value(i))
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case array.ListLike:
		start, end := x.ValueOffsets(i)
		vals := x.ListValues()
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, arrowValue(vals, int(j)))
		}
		return out
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		m := make(map[string]any, x.NumField())
		for f := 0; f < x.NumField(); f++ {
			m[st.Field(f).Name] = arrowValue(x.Field(f), i)
		}
		return m
	case *array.Dictionary:
		return arrowValue(x.Dictionary(), x.GetValueIndex(i))
	}
	return a.ValueStr(i)
}
