package reports

import "github.com/apache/arrow/go/v17/arrow"

// FieldSpec is one column as an independent reader checks it: name, Arrow type
// as Go's arrow names it, nullability.
type FieldSpec struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// SchemaSpec is the layout the independent run checker
// (reports/arrowcheck/checkrun.mjs) holds a run's files against, derived from
// the column lists here so the checker never carries a copy of them: traces'
// columns, and results' fixed columns around the per-task answer and score
// columns.
type SchemaSpec struct {
	Version string `json:"schema_version"`
	// VersionLists is results.arrow's version when it holds list score columns.
	VersionLists string      `json:"schema_version_lists"`
	Traces       []FieldSpec `json:"traces"`
	ResultsHead  []FieldSpec `json:"results_head"`
	ResultsTail  []FieldSpec `json:"results_tail"`
}

// Spec returns the current SchemaSpec.
func Spec() SchemaSpec {
	return SchemaSpec{Version: SchemaVersion, VersionLists: SchemaVersionLists, Traces: fieldSpecs(traceColumns),
		ResultsHead: fieldSpecs(resultHead), ResultsTail: fieldSpecs(resultTail)}
}

func fieldSpecs[R any](cols []column[R]) []FieldSpec {
	out := make([]FieldSpec, len(cols))
	for i, c := range cols {
		out[i] = FieldSpec{Name: c.field.Name, Type: typeName(c.field.Type), Nullable: c.field.Nullable}
	}
	return out
}

// typeName spells an Arrow type as Go's arrow names it (int32, float64,
// utf8), a list with its element's type: list<float64>.
func typeName(t arrow.DataType) string {
	if l, ok := t.(*arrow.ListType); ok {
		return "list<" + typeName(l.Elem()) + ">"
	}
	return t.Name()
}
