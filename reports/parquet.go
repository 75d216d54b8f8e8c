package reports

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ParquetPath is where the Parquet copy of an Arrow file goes: beside it, with
// the extension .parquet (results.arrow → results.parquet).
func ParquetPath(arrowPath string) string {
	return strings.TrimSuffix(arrowPath, ".arrow") + ".parquet"
}

// WriteParquetCopy writes the Arrow IPC file at arrowPath as Parquet beside it
// (ParquetPath), so DuckDB, pandas and polars read the run's tables without the
// Arrow extension: the same columns in the same order with the same types
// (int32 stays int32: the Arrow schema is stored, as pyarrow does), zstd
// compressed, every record batch a row group, and the Arrow file's provenance
// metadata as Parquet key-value metadata. Like the Arrow files it appears only
// when complete (written beside, then renamed).
func WriteParquetCopy(arrowPath string) error {
	return ArrowToParquet(arrowPath, ParquetPath(arrowPath))
}

// ArrowToParquet writes the Arrow IPC file at arrowPath as the Parquet file
// path, as WriteParquetCopy does (datasets convert uses it for .arrow input).
func ArrowToParquet(arrowPath, path string) (err error) {
	in, err := os.Open(arrowPath)
	if err != nil {
		return err
	}
	defer in.Close()
	rd, err := ipc.NewFileReader(in, ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		return fmt.Errorf("reports: %s: %w", arrowPath, err)
	}
	defer rd.Close()
	out, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.abort()
		}
	}()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("entropix-eval"), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(rd.Schema(), out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("reports: %s: %w", path, err)
	}
	for i := range rd.NumRecords() {
		rec, err := rd.RecordAt(i)
		if err != nil {
			return errors.Join(fmt.Errorf("reports: %s: batch %d: %w", arrowPath, i, err), w.Close())
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return errors.Join(fmt.Errorf("reports: %s: %w", path, err), w.Close())
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("reports: %s: %w", path, err)
	}
	return out.commit()
}
