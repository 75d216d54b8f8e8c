package reports

// List-valued scores in results.arrow: the per-doc values of a metric that a
// Python aggregation folds (IFEval's instruction-level accuracies, one
// boolean per instruction of the prompt). Each is a nullable list<double>
// column named by its key ("inst_level_strict_acc,none"), after the score
// columns, which DuckDB and pandas read as lists (list_avg, unnest,
// explode). They are no per-problem score: the statistics, the report's
// pairing and compare read Scores only.

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// ListScore is one response's value of a list-valued metric under one
// filter: its numbers in order, Python's True and False as 1 and 0 (a
// single number as a one-element list).
type ListScore struct {
	Metric string
	Filter string
	Values []float64
}

// Key is the list score's lm-eval key.
func (s ListScore) Key() ScoreKey { return KeyOf(s.Metric, s.Filter) }

// List returns the row's list under key k.
func (r *ResultRow) List(k ScoreKey) ([]float64, bool) {
	for _, s := range r.Lists {
		if s.Key() == k {
			return s.Values, true
		}
	}
	return nil, false
}

// ListKeys lists every list score key of rows in first-seen order.
func ListKeys(rows []ResultRow) []ScoreKey {
	var out []ScoreKey
	seen := map[ScoreKey]bool{}
	for i := range rows {
		for _, s := range rows[i].Lists {
			if k := s.Key(); !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// listType is a list score column's type.
var listType = arrow.ListOf(arrow.PrimitiveTypes.Float64)

// isListColumn says a results column holds list scores.
func isListColumn(f arrow.Field) bool { return f.Type.ID() == arrow.LIST }

func listColumn(k ScoreKey) column[ResultRow] {
	metric, filter := k.Metric(), k.Filter()
	return column[ResultRow]{
		field: arrow.Field{Name: string(k), Type: listType, Nullable: true},
		value: func(r *ResultRow) any {
			if v, ok := r.List(k); ok {
				return v
			}
			return nil
		},
		appender: func(b array.Builder) func(*ResultRow) {
			lb := b.(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			return func(r *ResultRow) {
				v, ok := r.List(k)
				if !ok {
					lb.AppendNull()
					return
				}
				lb.Append(true)
				vb.AppendValues(v, nil)
			}
		},
		scanner: func(a arrow.Array) (func(int, *ResultRow), error) {
			la := a.(*array.List)
			vals, ok := la.ListValues().(*array.Float64)
			if !ok {
				return nil, fmt.Errorf("list column %q: values of type %s, want float64", k, la.ListValues().DataType())
			}
			n := int64(vals.Len())
			for i := 0; i < la.Len(); i++ {
				if la.IsNull(i) {
					continue
				}
				if start, end := la.ValueOffsets(i); start < 0 || end < start || end > n {
					return nil, fmt.Errorf("list column %q: row %d: offsets %d..%d outside its %d values", k, i, start, end, n)
				}
			}
			return func(i int, r *ResultRow) {
				if la.IsNull(i) {
					return
				}
				start, end := la.ValueOffsets(i)
				v := make([]float64, 0, end-start)
				for j := start; j < end; j++ {
					v = append(v, vals.Value(int(j)))
				}
				r.Lists = append(r.Lists, ListScore{Metric: metric, Filter: filter, Values: v})
			}, nil
		},
	}
}
