package reports

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// RowReader streams the rows of an Arrow IPC file of one kind, one record batch
// in memory at a time:
//
//	r, err := reports.OpenTraces(path)
//	...
//	defer r.Close()
//	for r.Next() {
//		row := r.Row()
//	}
//	if err := r.Err(); err != nil { ... }
//
// The file must hold every column of the kind with its exact type; extra columns
// are ignored. Errors name the file, and the column and row where there is one.
type RowReader[R any] struct {
	path    string
	kind    string
	file    io.Closer // nil when reading from memory
	ipcr    *ipc.FileReader
	cols    []column[R]
	colIdx  []int // file column index of cols[i]
	check   func(*R) error
	batch   int // next batch to load
	rec     arrow.Record
	scan    []func(int, *R)
	i, n    int   // current row within rec, rows in rec
	rowBase int64 // file row index of rec's first row
	row     R
	err     error
}

// TraceReader reads traces.arrow.
type TraceReader = RowReader[TraceRow]

// OpenTraces opens a traces.arrow file for streaming.
func OpenTraces(path string) (*TraceReader, error) {
	return openReader(path, KindTraces, traceColumns, nil)
}

// ReadTraces reads every row of a traces.arrow file into memory (over 200
// bytes a row); stream a full run's traces with OpenTraces instead.
func ReadTraces(path string) ([]TraceRow, error) {
	return readAll(path, KindTraces, traceColumns, nil)
}

// ReadResults reads every row of a results.arrow file.
func ReadResults(path string) ([]ResultRow, error) {
	r, err := openReaderFor(path, KindResults, func(s *arrow.Schema) ([]column[ResultRow], error) {
		return resultColumns(layoutOfSchema(s))
	}, checkResultRow)
	if err != nil {
		return nil, err
	}
	return collect(r)
}

// ReadSummary reads every row of a summary.arrow file.
func ReadSummary(path string) ([]SummaryRow, error) {
	return readAll(path, KindSummary, summaryColumns, checkSummaryRow)
}

func readAll[R any](path, kind string, cols []column[R], check func(*R) error) ([]R, error) {
	r, err := openReader(path, kind, cols, check)
	if err != nil {
		return nil, err
	}
	return collect(r)
}

// collect reads the remaining rows and closes r.
func collect[R any](r *RowReader[R]) ([]R, error) {
	defer r.Close()
	var rows []R
	for r.Next() {
		rows = append(rows, r.row)
	}
	return rows, r.Err()
}

func openReader[R any](path, kind string, cols []column[R], check func(*R) error) (*RowReader[R], error) {
	return openReaderFor(path, kind, fixedColumns(cols), check)
}

// fixedColumns is a column list that does not depend on the file.
func fixedColumns[R any](cols []column[R]) func(*arrow.Schema) ([]column[R], error) {
	return func(*arrow.Schema) ([]column[R], error) { return cols, nil }
}

// openReaderFor opens a file whose columns depend on its schema (results).
func openReaderFor[R any](path, kind string, colsFor func(*arrow.Schema) ([]column[R], error), check func(*R) error) (*RowReader[R], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reports: read %s: %w", kind, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reports: read %s: %w", kind, err)
	}
	r, err := newRowReader(f, info.Size(), path, kind, colsFor, check)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// newRowReader reads from src, size bytes long; path only names it in errors.
func newRowReader[R any](src ipc.ReadAtSeeker, size int64, path, kind string, colsFor func(*arrow.Schema) ([]column[R], error), check func(*R) error) (r *RowReader[R], err error) {
	r = &RowReader[R]{path: path, kind: kind, check: check}
	// The Arrow Go reader panics on some malformed input; a bad file must be an
	// error, not a crash.
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("reports: read %s %s: corrupt Arrow file: %v", kind, path, p)
		}
	}()
	if err := checkFooter(src, size); err != nil {
		return nil, r.errorf("not a readable Arrow IPC file: %w", err)
	}
	ipcr, err := ipc.NewFileReader(src, ipc.WithAllocator(newReadAllocator(size)))
	if err != nil {
		return nil, r.errorf("not a readable Arrow IPC file: %w", err)
	}
	r.ipcr = ipcr
	if err := r.checkKind(ipcr.Schema()); err != nil {
		ipcr.Close()
		return nil, err
	}
	if r.cols, err = colsFor(ipcr.Schema()); err != nil {
		ipcr.Close()
		return nil, r.errorf("%w", err)
	}
	if err := r.bindSchema(ipcr.Schema()); err != nil {
		ipcr.Close()
		return nil, err
	}
	return r, nil
}

// checkKind checks the file's kind and schema version. A file of another
// version is refused with what to do about it: rescore rewrites a run
// directory's results and traces in the current schema.
func (r *RowReader[R]) checkKind(s *arrow.Schema) error {
	md := s.Metadata()
	if got, ok := md.GetValue(metaKind); ok && got != r.kind {
		return r.errorf("file holds %s rows, not %s", got, r.kind)
	}
	if got, ok := md.GetValue(metaVersion); ok && got != SchemaVersion && got != SchemaVersionLists {
		return r.errorf("%w: schema version %s, this build reads version %s (run `entropix-eval rescore RUN_DIR` to rewrite a run directory's files)", ErrSchemaVersion, got, SchemaVersion)
	}
	return nil
}

// ErrSchemaVersion marks a file written with another schema version.
var ErrSchemaVersion = errors.New("old schema")

// bindSchema maps the expected columns onto the file's, checking types.
func (r *RowReader[R]) bindSchema(s *arrow.Schema) error {
	for _, c := range r.cols {
		idx := s.FieldIndices(c.field.Name)
		switch {
		case len(idx) == 0:
			return r.errorf("column %q is missing", c.field.Name)
		case len(idx) > 1:
			return r.errorf("column %q appears %d times", c.field.Name, len(idx))
		}
		got := s.Field(idx[0])
		if !arrow.TypeEqual(got.Type, c.field.Type) {
			return r.errorf("column %q has type %s, want %s", c.field.Name, got.Type, c.field.Type)
		}
		r.colIdx = append(r.colIdx, idx[0])
	}
	return nil
}

// Next advances to the next row, loading the next record batch when needed.
// It returns false at the end of the file or on an error (see Err).
func (r *RowReader[R]) Next() (ok bool) {
	if r.err != nil || r.ipcr == nil {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			r.err = r.errorf("record batch %d: corrupt data: %v", r.batch-1, p)
			ok = false
		}
	}()
	for r.i >= r.n {
		if !r.loadBatch() {
			return false
		}
	}
	var zero R
	r.row = zero // slices (a result row's answers and scores) start empty
	for _, s := range r.scan {
		s(r.i, &r.row)
	}
	if r.check != nil {
		if err := r.check(&r.row); err != nil {
			r.err = r.errorf("row %d: %w", r.rowBase+int64(r.i), err)
			return false
		}
	}
	r.i++
	return true
}

func (r *RowReader[R]) loadBatch() bool {
	if r.rec != nil {
		r.rowBase += int64(r.n)
		r.rec.Release()
		r.rec = nil
	}
	if r.batch >= r.ipcr.NumRecords() {
		return false
	}
	rec, err := r.ipcr.RecordAt(r.batch)
	r.batch++
	if err != nil {
		r.err = r.errorf("record batch %d: %w", r.batch-1, err)
		return false
	}
	r.rec = rec
	r.i, r.n = 0, int(rec.NumRows())
	r.scan = r.scan[:0]
	for k, c := range r.cols {
		a := rec.Column(r.colIdx[k])
		if a.Len() != r.n {
			r.err = r.errorf("record batch %d: column %q has %d rows, want %d", r.batch-1, c.field.Name, a.Len(), r.n)
			return false
		}
		if !c.field.Nullable && a.NullN() > 0 {
			r.err = r.errorf("record batch %d: column %q holds nulls (first at row %d) but may not",
				r.batch-1, c.field.Name, r.rowBase+int64(firstNull(a)))
			return false
		}
		s, err := c.scanner(a)
		if err != nil {
			r.err = r.errorf("record batch %d: column %q: %w", r.batch-1, c.field.Name, err)
			return false
		}
		r.scan = append(r.scan, s)
	}
	return true
}

func firstNull(a arrow.Array) int {
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			return i
		}
	}
	return -1
}

// Row returns the current row. Strings are copies: rows stay valid after Next.
func (r *RowReader[R]) Row() R { return r.row }

// Err returns the first error met by Next, if any.
func (r *RowReader[R]) Err() error { return r.err }

// NumBatches returns the number of record batches in the file.
func (r *RowReader[R]) NumBatches() int {
	if r.ipcr == nil {
		return 0
	}
	return r.ipcr.NumRecords()
}

// Close releases the file. Safe to call more than once.
func (r *RowReader[R]) Close() error {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	var err error
	if r.ipcr != nil {
		r.ipcr.Close()
		r.ipcr = nil
		if r.file != nil {
			err = r.file.Close()
		}
	}
	return err
}

func (r *RowReader[R]) errorf(format string, args ...any) error {
	return fmt.Errorf("reports: read %s %s: %w", r.kind, r.path, fmt.Errorf(format, args...))
}
