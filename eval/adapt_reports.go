package eval

import "github.com/entropix-eval/entropix-eval/reports"

// ReportsArrow writes results.arrow and traces.arrow with package reports'
// schemas: the rows are reports' own types, built once from the records.
type ReportsArrow struct{}

func (ReportsArrow) WriteResults(path string, rows []reports.ResultRow, p reports.Provenance) error {
	return reports.WriteResults(path, rows, reports.WithProvenance(p))
}

func (ReportsArrow) WriteTraces(path string, rows []reports.TraceRow, p reports.Provenance) error {
	return reports.WriteTraces(path, rows, reports.WithProvenance(p))
}

// WriteParquetCopy writes the Parquet copy of an Arrow file beside it, for
// DuckDB, pandas and polars (reports.WriteParquetCopy).
func (ReportsArrow) WriteParquetCopy(arrowPath string) error {
	return reports.WriteParquetCopy(arrowPath)
}
