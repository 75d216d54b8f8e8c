package reports

import (
	"errors"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// DefaultBatchRows is the record batch length of writers: 64k trace rows are
// about 10 MiB of builders, so memory stays bounded for runs of millions of
// tokens while batches stay large enough for fast columnar reads.
const DefaultBatchRows = 1 << 16

// WriterOption configures a writer.
type WriterOption func(*writerConfig)

type writerConfig struct {
	batchRows int
	meta      map[string]string // added to the schema's metadata
}

// WithBatchRows sets the number of rows per record batch (minimum 1).
func WithBatchRows(n int) WriterOption {
	return func(c *writerConfig) { c.batchRows = max(n, 1) }
}

// RowWriter streams rows of one kind into an Arrow IPC file in record batches.
// The file appears at its path only on a successful Close; Abort (or a failed
// Close) leaves the path as it was. Not safe for concurrent use.
type RowWriter[R any] struct {
	file      *atomicFile
	ipcw      *ipc.FileWriter
	builder   *array.RecordBuilder
	appenders []func(*R)
	check     func(*R) error
	batchRows int
	pending   int
	rows      int64
	err       error
	done      bool
}

// TraceWriter writes traces.arrow.
type TraceWriter = RowWriter[TraceRow]

// ResultWriter writes results.arrow.
type ResultWriter = RowWriter[ResultRow]

// CreateTraces starts a traces.arrow file at path.
func CreateTraces(path string, opts ...WriterOption) (*TraceWriter, error) {
	return createWriter(path, TraceSchema, traceColumns, nil, opts)
}

// CreateResults starts a results.arrow file at path with the answer and
// score columns of layout l.
func CreateResults(path string, l ResultLayout, opts ...WriterOption) (*ResultWriter, error) {
	cols, err := resultColumns(l)
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	return createWriter(path, schemaOf(KindResults, cols), cols, checkResultRow, opts)
}

// WriteResults writes rows as a complete results.arrow file, with a column
// for every filter answer and score key the rows carry.
func WriteResults(path string, rows []ResultRow, opts ...WriterOption) error {
	cols, err := resultColumns(LayoutOf(rows))
	if err != nil {
		return fmt.Errorf("reports: %s: %w", path, err)
	}
	return writeAll(path, schemaOf(KindResults, cols), cols, checkResultRow, rows, opts...)
}

// WriteSummary writes rows as a complete summary.arrow file.
func WriteSummary(path string, rows []SummaryRow, opts ...WriterOption) error {
	return writeAll(path, SummarySchema, summaryColumns, checkSummaryRow, rows, opts...)
}

// WriteTraces writes rows as a complete traces.arrow file.
func WriteTraces(path string, rows []TraceRow, opts ...WriterOption) error {
	return writeAll(path, TraceSchema, traceColumns, nil, rows, opts...)
}

func writeAll[R any](path string, schema *arrow.Schema, cols []column[R], check func(*R) error, rows []R, opts ...WriterOption) error {
	w, err := createWriter(path, schema, cols, check, opts)
	if err != nil {
		return err
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

func createWriter[R any](path string, schema *arrow.Schema, cols []column[R], check func(*R) error, opts []WriterOption) (*RowWriter[R], error) {
	cfg := writerConfig{batchRows: DefaultBatchRows}
	for _, o := range opts {
		o(&cfg)
	}
	schema = withMetadata(schema, cfg.meta)
	file, err := createAtomic(path)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	mem := memory.DefaultAllocator
	ipcw, err := ipc.NewFileWriter(file, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		file.abort()
		return nil, fmt.Errorf("reports: create %s: %w", path, err)
	}
	b := array.NewRecordBuilder(mem, schema)
	w := &RowWriter[R]{file: file, ipcw: ipcw, builder: b, check: check, batchRows: cfg.batchRows}
	for i, c := range cols {
		w.appenders = append(w.appenders, c.appender(b.Field(i)))
	}
	return w, nil
}

// Write appends one row; it is flushed with its batch. After an error the writer
// only accepts Abort or Close (which then discards the file).
func (w *RowWriter[R]) Write(r *R) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errors.New("reports: write after Close")
	}
	if w.check != nil {
		if err := w.check(r); err != nil {
			w.err = fmt.Errorf("reports: write %s row %d: %w", w.file.path, w.rows, err)
			return w.err
		}
	}
	for _, app := range w.appenders {
		app(r)
	}
	w.pending++
	w.rows++
	if w.pending >= w.batchRows {
		return w.flush()
	}
	return nil
}

// Rows returns the number of rows written so far.
func (w *RowWriter[R]) Rows() int64 { return w.rows }

func (w *RowWriter[R]) flush() error {
	if w.pending == 0 {
		return nil
	}
	rec := w.builder.NewRecord()
	defer rec.Release()
	w.pending = 0
	if err := w.ipcw.Write(rec); err != nil {
		w.err = fmt.Errorf("reports: write %s: %w", w.file.path, err)
		return w.err
	}
	return nil
}

// Close flushes the last batch, writes the footer and publishes the file
// atomically. If any earlier write failed, Close discards the file and returns
// that error.
func (w *RowWriter[R]) Close() error {
	if w.done {
		return w.err
	}
	w.done = true
	defer w.builder.Release()
	if w.err == nil {
		w.flush()
	}
	if w.err == nil {
		if err := w.ipcw.Close(); err != nil {
			w.err = fmt.Errorf("reports: finish %s: %w", w.file.path, err)
		}
	}
	if w.err != nil {
		w.file.abort()
		return w.err
	}
	if err := w.file.commit(); err != nil {
		w.err = fmt.Errorf("reports: %w", err)
	}
	return w.err
}

// Abort discards everything written; the path keeps its previous content.
// Safe to call after Close (then it does nothing).
func (w *RowWriter[R]) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.builder.Release()
	w.file.abort()
	if w.err == nil {
		w.err = errors.New("reports: writer aborted")
	}
}
