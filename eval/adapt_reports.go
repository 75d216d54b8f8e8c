package eval

import "github.com/entropix-eval/entropix-eval/reports"

// ReportsArrow writes results.arrow and traces.arrow with package reports'
// schemas: the rows are reports' own types, built once from the records.
type ReportsArrow struct{}

func (ReportsArrow) WriteResults(path string, rows []reports.ResultRow) error {
	return reports.WriteResults(path, rows)
}

func (ReportsArrow) WriteTraces(path string, rows []reports.TraceRow) error {
	return reports.WriteTraces(path, rows)
}
