package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/entropix-eval/entropix-eval/reports"
)

// ParquetFile is the history table's file name under --out.
const ParquetFile = "history.parquet"

// field binds one column of history.parquet to a Row field: its Arrow type,
// how to append a row's value and how to read it back.
type field struct {
	name string
	typ  arrow.DataType
	put  func(array.Builder, *Row)
	get  func(arrow.Array, int, *Row)
}

func strField(name string, f func(*Row) *string) field {
	return field{name, arrow.BinaryTypes.String,
		func(b array.Builder, r *Row) { b.(*array.StringBuilder).Append(*f(r)) },
		func(a arrow.Array, i int, r *Row) { *f(r) = a.(*array.String).Value(i) }}
}

func f64Field(name string, f func(*Row) *float64) field {
	return field{name, arrow.PrimitiveTypes.Float64,
		func(b array.Builder, r *Row) { b.(*array.Float64Builder).Append(*f(r)) },
		func(a arrow.Array, i int, r *Row) { *f(r) = a.(*array.Float64).Value(i) }}
}

func i32Field(name string, f func(*Row) *int32) field {
	return field{name, arrow.PrimitiveTypes.Int32,
		func(b array.Builder, r *Row) { b.(*array.Int32Builder).Append(*f(r)) },
		func(a arrow.Array, i int, r *Row) { *f(r) = a.(*array.Int32).Value(i) }}
}

// fields are history.parquet's columns, in order.
var fields = []field{
	{"date", arrow.FixedWidthTypes.Date32,
		func(b array.Builder, r *Row) { b.(*array.Date32Builder).Append(arrow.Date32FromTime(r.Date)) },
		func(a arrow.Array, i int, r *Row) { r.Date = a.(*array.Date32).Value(i).ToTime().UTC() }},
	{"started", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
		func(b array.Builder, r *Row) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(r.Started.UnixMilli()))
		},
		func(a arrow.Array, i int, r *Row) {
			r.Started = time.UnixMilli(int64(a.(*array.Timestamp).Value(i))).UTC()
		}},
	strField("run_key", func(r *Row) *string { return &r.RunKey }),
	strField("model", func(r *Row) *string { return &r.Model }),
	strField("model_revision", func(r *Row) *string { return &r.ModelRevision }),
	strField("model_sha256", func(r *Row) *string { return &r.ModelSHA256 }),
	strField("task", func(r *Row) *string { return &r.Task }),
	strField("sampler", func(r *Row) *string { return &r.Sampler }),
	strField("sampler_spec", func(r *Row) *string { return &r.SamplerSpec }),
	strField("filter", func(r *Row) *string { return &r.Filter }),
	{"primary", arrow.FixedWidthTypes.Boolean,
		func(b array.Builder, r *Row) { b.(*array.BooleanBuilder).Append(r.Primary) },
		func(a arrow.Array, i int, r *Row) { r.Primary = a.(*array.Boolean).Value(i) }},
	f64Field("accuracy", func(r *Row) *float64 { return &r.Accuracy }),
	f64Field("ci_low", func(r *Row) *float64 { return &r.CILow }),
	f64Field("ci_high", func(r *Row) *float64 { return &r.CIHigh }),
	f64Field("se", func(r *Row) *float64 { return &r.SE }),
	i32Field("n", func(r *Row) *int32 { return &r.N }),
	i32Field("samples", func(r *Row) *int32 { return &r.Samples }),
	strField("code_revision", func(r *Row) *string { return &r.CodeRevision }),
	f64Field("throughput", func(r *Row) *float64 { return &r.Throughput }),
	strField("run_dir", func(r *Row) *string { return &r.RunDir }),
	strField("report", func(r *Row) *string { return &r.Report }),
}

func schema() *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.name, Type: f.typ}
	}
	return arrow.NewSchema(fs, nil)
}

// writeParquet writes rows as history.parquet at path (zstd, one row group),
// atomically: a reader sees the old table or the new one.
func writeParquet(path string, rows []Row) error {
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, schema())
	defer b.Release()
	for i := range rows {
		for j, f := range fields {
			f.put(b.Field(j), &rows[i])
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCreatedBy("entropix-eval history"))
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Write(rec); err != nil {
		return errors.Join(fmt.Errorf("%s: %w", path, err), w.Close())
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return reports.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
}

// readParquet reads history.parquet; a missing file is an empty history.
func readParquet(path string) ([]Row, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tbl.Release()
	if err := sameColumns(tbl.Schema()); err != nil {
		return nil, fmt.Errorf("%s: not a history table of this version (%w); index the run directories into a new --out", path, err)
	}
	rows := make([]Row, tbl.NumRows())
	for j, f := range fields {
		i := 0
		for _, chunk := range tbl.Column(j).Data().Chunks() {
			for k := range chunk.Len() {
				f.get(chunk, k, &rows[i])
				i++
			}
		}
	}
	return rows, nil
}

// sameColumns checks a table has history.parquet's columns, names and types in order.
func sameColumns(s *arrow.Schema) error {
	if s.NumFields() != len(fields) {
		return fmt.Errorf("%d columns, want %d", s.NumFields(), len(fields))
	}
	for i, f := range fields {
		if got := s.Field(i); got.Name != f.name || !arrow.TypeEqual(got.Type, f.typ) {
			return fmt.Errorf("column %d is %s %s, want %s %s", i, got.Name, got.Type, f.name, f.typ)
		}
	}
	return nil
}
