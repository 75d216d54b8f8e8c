package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

// writeForeign writes an Arrow IPC file the way another tool might: any schema,
// no entropix metadata unless given.
func writeForeign(t *testing.T, path string, fields []arrow.Field, md *arrow.Metadata, fill func(b *array.RecordBuilder)) {
	t.Helper()
	schema := arrow.NewSchema(fields, md)
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	require.NoError(t, err)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecord()
	defer rec.Release()
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}

// resultFieldsWith returns the results schema's fields with one replaced.
func resultFieldsWith(name string, f arrow.Field) []arrow.Field {
	fields := append([]arrow.Field(nil), testResultSchema().Fields()...)
	for i := range fields {
		if fields[i].Name == name {
			fields[i] = f
		}
	}
	return fields
}

// fillResults appends one valid-looking results row, column by column, through
// the builders of whatever types the fields have.
func fillResults(b *array.RecordBuilder, finish string, nullTarget bool) {
	for i, f := range b.Schema().Fields() {
		switch fb := b.Field(i).(type) {
		case *array.StringBuilder:
			switch {
			case f.Name == ColFinishReason:
				fb.Append(finish)
			case f.Name == ColTarget && nullTarget:
				fb.AppendNull()
			default:
				fb.Append("x")
			}
		case *array.Int32Builder:
			fb.Append(1)
		case *array.Int64Builder:
			fb.Append(1)
		case *array.Float64Builder:
			fb.Append(1)
		case *array.BooleanBuilder:
			fb.Append(true)
		}
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.arrow")
	require.NoError(t, WriteTraces(valid, sampleTraces()))
	validBytes, err := os.ReadFile(valid)
	require.NoError(t, err)

	tests := []struct {
		name    string
		prepare func(path string)
		read    func(path string) error
		want    string
	}{
		{"missing file", func(string) {}, readTraces, "no such file"},
		{"empty file", func(p string) { os.WriteFile(p, nil, 0o644) }, readTraces, "not a readable Arrow IPC file"},
		{"foreign text", func(p string) { os.WriteFile(p, []byte("run_id,task\nr1,gsm8k\n"), 0o644) }, readTraces, "not a readable Arrow IPC file"},
		{"truncated", func(p string) { os.WriteFile(p, validBytes[:len(validBytes)/2], 0o644) }, readTraces, "not a readable Arrow IPC file"},
		{"footer lost", func(p string) { os.WriteFile(p, validBytes[:len(validBytes)-10], 0o644) }, readTraces, "not a readable Arrow IPC file"},
		{"IPC stream, not file", func(p string) {
			f, _ := os.Create(p)
			defer f.Close()
			w := ipc.NewWriter(f, ipc.WithSchema(TraceSchema))
			w.Close()
		}, readTraces, "an Arrow IPC stream rather than a file"},
		{"other kind", func(p string) { WriteResults(p, sampleResults()) }, readTraces, "file holds results rows, not traces"},
		{"missing column", func(p string) {
			writeForeign(t, p, testResultSchema().Fields()[:9], nil, func(b *array.RecordBuilder) { fillResults(b, "stop", false) })
		}, readResults, `column "repeat" is missing`},
		{"wrong type", func(p string) {
			fields := resultFieldsWith(ColProblemID, arrow.Field{Name: ColProblemID, Type: arrow.PrimitiveTypes.Int64})
			writeForeign(t, p, fields, nil, func(b *array.RecordBuilder) { fillResults(b, "stop", false) })
		}, readResults, `column "problem_id" has type int64, want int32`},
		{"null in non-nullable column", func(p string) {
			fields := resultFieldsWith(ColTarget, arrow.Field{Name: ColTarget, Type: arrow.BinaryTypes.String, Nullable: true})
			writeForeign(t, p, fields, nil, func(b *array.RecordBuilder) { fillResults(b, "stop", true) })
		}, readResults, `column "target" holds nulls (first at row 0)`},
		{"value outside vocabulary", func(p string) {
			writeForeign(t, p, testResultSchema().Fields(), nil, func(b *array.RecordBuilder) { fillResults(b, "cancelled", false) })
		}, readResults, `row 0: finish_reason "cancelled"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.arrow")
			tt.prepare(path)
			err := tt.read(path)
			require.Error(t, err)
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, path)
		})
	}
}

func TestForeignFileWithExtraColumnsAndNullableFlagsReads(t *testing.T) {
	// pyarrow marks every column nullable and other tools add columns: both are
	// fine as long as the values obey the schema.
	var fields []arrow.Field
	for _, f := range testResultSchema().Fields() {
		f.Nullable = true
		fields = append(fields, f)
	}
	fields = append(fields, arrow.Field{Name: "note", Type: arrow.BinaryTypes.String})
	path := filepath.Join(t.TempDir(), "results.arrow")
	writeForeign(t, path, fields, nil, func(b *array.RecordBuilder) { fillResults(b, "eos", false) })
	rows, err := ReadResults(path)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, FinishEOS, rows[0].FinishReason)
}

// Every single-byte corruption of a valid file gives rows or an error, never a
// panic (the Arrow Go reader panics on some of them; the reader must catch it).
func TestReadSurvivesEveryByteFlip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.arrow")
	require.NoError(t, WriteTraces(path, sampleTraces()))
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := range orig {
		b := append([]byte(nil), orig...)
		b[i] ^= 0xff
		require.NotPanics(t, func() { readBytes(b, KindTraces, traceColumns, nil) }, "byte %d", i)
	}
}

func FuzzReadResults(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.arrow")
	if err := WriteResults(seed, sampleResults()); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readBytes(data, KindResults, testResultColumns(), checkResultRow)
		if err == nil {
			for i := range rows {
				if checkResultRow(&rows[i]) != nil {
					t.Fatalf("row %d passed the reader with an invalid finish_reason", i)
				}
			}
		}
	})
}

func FuzzReadTraces(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.arrow")
	w, err := CreateTraces(seed, WithBatchRows(2))
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range sampleTraces() {
		if err := w.Write(&r); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		readBytes(data, KindTraces, traceColumns, nil)
	})
}

func readTraces(path string) error {
	_, err := ReadTraces(path)
	return err
}

func readResults(path string) error {
	_, err := ReadResults(path)
	return err
}

// readBytes reads a file image from memory, as Read* would read it from disk.
func readBytes[R any](b []byte, kind string, cols []column[R], check func(*R) error) ([]R, error) {
	r, err := newRowReader(bytes.NewReader(b), int64(len(b)), "mem.arrow", kind, fixedColumns(cols), check)
	if err != nil {
		return nil, err
	}
	return collect(r)
}

func TestOldSchemaVersionIsRefusedWithTheWayOut(t *testing.T) {
	md := arrow.NewMetadata([]string{metaKind, metaVersion}, []string{KindResults, "1"})
	path := filepath.Join(t.TempDir(), "results.arrow")
	writeForeign(t, path, testResultSchema().Fields(), &md, func(b *array.RecordBuilder) { fillResults(b, "stop", false) })
	_, err := ReadResults(path)
	require.ErrorIs(t, err, ErrSchemaVersion)
	require.ErrorContains(t, err, "schema version 1, this build reads version "+SchemaVersion)
	require.ErrorContains(t, err, "entropix-eval rescore RUN_DIR")
}
