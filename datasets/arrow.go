package datasets

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// readArrowDocs reads a Hugging Face datasets cache file: an Arrow IPC stream
// (what datasets' ArrowWriter writes), or an IPC file. The column order is
// the schema's.
func readArrowDocs(path string) (_ fileRows, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt Arrow data (%v)", path, p)
		}
	}()
	fh, _, err := openSized(path)
	if err != nil {
		return fileRows{}, err
	}
	defer fh.Close()
	var rows fileRows
	var head [6]byte
	if _, err := io.ReadFull(fh, head[:]); err == nil && string(head[:]) == "ARROW1" {
		r, err := ipc.NewFileReader(fh)
		if err != nil {
			return fileRows{}, fmt.Errorf("%s: %w", path, err)
		}
		defer r.Close()
		rows.fields = arrowFields(r.Schema().Fields())
		if err := checkColumns(path, len(rows.fields)); err != nil {
			return fileRows{}, err
		}
		for i := 0; i < r.NumRecords(); i++ {
			rec, err := r.Record(i)
			if err != nil {
				return fileRows{}, fmt.Errorf("%s: record batch %d: %w", path, i, err)
			}
			rows.docs = appendRecordDocs(rows.docs, rec)
		}
		return rows, nil
	}
	if err := checkStreamHead(path, fh); err != nil {
		return fileRows{}, err
	}
	r, err := ipc.NewReader(fh)
	if err != nil {
		return fileRows{}, fmt.Errorf("%s: not an Arrow IPC stream or file: %w", path, err)
	}
	defer r.Release()
	rows.fields = arrowFields(r.Schema().Fields())
	if err := checkColumns(path, len(rows.fields)); err != nil {
		return fileRows{}, err
	}
	for r.Next() {
		rows.docs = appendRecordDocs(rows.docs, r.Record())
	}
	if err := r.Err(); err != nil {
		return fileRows{}, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// arrowFields is the order of Arrow fields, a struct's (or a list of
// structs') own fields included.
func arrowFields(fs []arrow.Field) Fields {
	out := make(Fields, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.Name, Sub: arrowSub(f.Type)}
	}
	return out
}

func arrowSub(t arrow.DataType) Fields {
	switch x := t.(type) {
	case *arrow.StructType:
		return arrowFields(x.Fields())
	case arrow.ListLikeType:
		return arrowSub(x.Elem())
	}
	return nil
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
