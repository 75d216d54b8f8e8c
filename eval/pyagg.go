package eval

// Metrics a Python aggregation folds (metric_list's `aggregation: !function
// utils.agg`): IFEval's instruction-level accuracies, whose per-doc value is
// a list of booleans. They are kept per doc as Python returned them
// (samples.jsonl, lm-eval's samples), and their score is the aggregation's
// value over every doc of a run, computed when the run finishes (and at
// rescore) by one call per (task, sampler, seed, filter, metric). lm-eval
// gives an aggregation it does not know no standard error ("N/A"); nor do
// we, and the report pairs no problems on them: they have no per-problem
// score.

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/reports"
)

// DocValue is one doc's value of a metric a Python aggregation folds, as
// Python wrote it (JSON).
type DocValue struct {
	Metric string
	Filter string
	JSON   json.RawMessage
}

// Key is the value's lm-eval key, "metric,filter".
func (v DocValue) Key() reports.ScoreKey { return reports.KeyOf(v.Metric, v.Filter) }

// KeyPythonAggregated lists, in a run's results.json entry, the score keys
// whose value is a Python aggregation's, without a standard error.
const KeyPythonAggregated = "python_aggregated"

// PythonAggregator is a Grader that runs a metric's Python aggregation over
// every doc's value.
type PythonAggregator interface {
	AggregatePython(task TaskSpec, m datasets.MetricSpec, values []json.RawMessage) (float64, error)
}

// AggregatePython runs m's Python aggregation through g.Python.
func (g *LMEvalGrader) AggregatePython(task TaskSpec, m datasets.MetricSpec, values []json.RawMessage) (float64, error) {
	if g.Python == nil {
		return 0, errNoPython(task.Name, "aggregation "+m.Aggregation+" of "+m.Metric)
	}
	return g.Python.Aggregate(task.Name, *m.PythonAggregation, values)
}

// hasPythonAggregation says whether a metric of the task aggregates in Python.
func hasPythonAggregation(task TaskSpec) bool {
	return slices.ContainsFunc(task.Metrics, func(m datasets.MetricSpec) bool { return m.PythonAggregation != nil })
}

// pythonAggregates adds each run's Python-aggregated scores to out: the
// value, a null standard error, and the key in score_keys (lm-eval's order:
// filters, then metric_list) and in python_aggregated.
func pythonAggregates(m *Manifest, grs []gradedRecord, g Grader, out ResultsJSON) error {
	if !hasPythonAggregation(m.Task) {
		return nil
	}
	agg, ok := g.(PythonAggregator)
	if !ok {
		return fmt.Errorf("task %s: its grader runs no Python aggregation", m.Task.Name)
	}
	values := map[string]map[reports.ScoreKey][]json.RawMessage{} // run → key → doc values
	for _, gr := range grs {
		run := m.Task.Name + "|" + gr.Job.RunID()
		if values[run] == nil {
			values[run] = map[reports.ScoreKey][]json.RawMessage{}
		}
		for _, v := range gr.Grade.Values {
			values[run][v.Key()] = append(values[run][v.Key()], v.JSON)
		}
	}
	for _, run := range out.Order {
		rs := out.Results[run]
		var keys, aggregated []string
		for _, f := range m.Task.Filters {
			for _, spec := range m.Task.Metrics {
				k := reports.KeyOf(spec.Metric, f.Name)
				if spec.PythonAggregation == nil {
					if _, ok := rs[string(k)]; ok {
						keys = append(keys, string(k))
					}
					continue
				}
				docs, ok := values[run][k]
				if !ok {
					continue
				}
				v, err := agg.AggregatePython(m.Task, spec, docs)
				if err != nil {
					return fmt.Errorf("task %s: metric %s, filter %s: aggregation %s: %w", m.Task.Name, spec.Metric, f.Name, spec.Aggregation, err)
				}
				rs[string(k)], rs[StderrKey(k)] = jsonNum(v), nil
				keys, aggregated = append(keys, string(k)), append(aggregated, string(k))
			}
		}
		rs["score_keys"], rs[KeyPythonAggregated] = keys, aggregated
	}
	return nil
}

// listScores are a grade's Python-aggregated values as results.arrow's list
// columns hold them: numbers and booleans (1 and 0), a single one as a
// one-element list. A value of another shape (a string, a dict, nested
// lists) has no column there: samples.jsonl keeps it.
func listScores(values []DocValue) []reports.ListScore {
	var out []reports.ListScore
	for _, v := range values {
		x, err := pyjson.Decode(v.JSON)
		if err != nil {
			continue
		}
		items, ok := x.([]any)
		if !ok {
			items = []any{x}
		}
		nums := make([]float64, 0, len(items))
		for _, it := range items {
			f, ok := scalar(it)
			if !ok {
				break
			}
			nums = append(nums, f)
		}
		if len(nums) == len(items) {
			out = append(out, reports.ListScore{Metric: v.Metric, Filter: v.Filter, Values: nums})
		}
	}
	return out
}

// scalar reads a number or a bool (Python's True is 1).
func scalar(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		return float64(b2i(x)), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
