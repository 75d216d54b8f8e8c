package eval

// Metrics aggregated over the corpus, not per doc: lm-eval's bleu, chrf and
// ter (sacrebleu over every doc's [reference, response]; package hooks'
// corpus metrics) and metrics a Python aggregation folds (metric_list's
// `aggregation: !function utils.agg`: IFEval's instruction-level accuracies,
// whose per-doc value is a list of booleans). Their per-doc values are kept
// as lm-eval logs them (samples.jsonl, lm-eval's samples), and their score is
// the aggregation over every doc of a run, computed when the run finishes
// (and at rescore), once per (task, sampler, seed, filter, metric). The
// standard error is lm-eval's: its bootstrap for bleu, chrf and ter (at most
// 100 resamples), none for a Python aggregation ("N/A"). They have no
// per-problem score, so the report pairs no problems on them.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// DocValue is one doc's value of a metric aggregated over the corpus, as
// lm-eval logs it (JSON): [reference, response] for bleu, what Python
// returned for a Python aggregation.
type DocValue struct {
	Metric string
	Filter string
	JSON   json.RawMessage
}

// Key is the value's lm-eval key, "metric,filter".
func (v DocValue) Key() reports.ScoreKey { return reports.KeyOf(v.Metric, v.Filter) }

// KeyCorpusAggregated lists, in a run's results.json entry, the score keys
// aggregated over the corpus; their standard error is null where lm-eval
// has none (a Python aggregation).
const KeyCorpusAggregated = "corpus_aggregated"

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

// aggregatedOverDocs says whether a metric's score is computed over every
// doc at once (a corpus metric or a Python aggregation).
func aggregatedOverDocs(m datasets.MetricSpec) bool {
	_, corpus := m.Corpus()
	return corpus || m.PythonAggregation != nil
}

// passthroughValue is the per-doc value of a passthrough metric (a corpus
// metric, or acc/f1/... under a Python aggregation): lm-eval's [gold,
// answer]. lm-eval's multiple-target path turns it into 1.0 instead (and a
// corpus aggregation then fails), so a doc with several targets is refused.
func passthroughValue(task TaskSpec, metric, filter string, targets []string, answer string) (DocValue, error) {
	if len(targets) != 1 {
		return DocValue{}, fmt.Errorf("task %s: metric %s needs one reference per doc, this doc has %d (lm-eval's multiple-target path replaces the [gold, result] its aggregation reads with 1.0)", task.Name, metric, len(targets))
	}
	b, err := pyjson.Dumps([]any{targets[0], answer})
	if err != nil {
		return DocValue{}, err
	}
	return DocValue{Metric: metric, Filter: filter, JSON: b}, nil
}

// corpusAggregates adds each run's corpus-aggregated scores to out: the
// value, its standard error (null without one), and the key in score_keys
// (lm-eval's order: filters, then metric_list) and in corpus_aggregated.
func corpusAggregates(m *Manifest, grs []gradedRecord, g Grader, out ResultsJSON) error {
	if !slices.ContainsFunc(m.Task.Metrics, aggregatedOverDocs) {
		return nil
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
				if !aggregatedOverDocs(spec) {
					if _, ok := rs[string(k)]; ok {
						keys = append(keys, string(k))
					}
					continue
				}
				docs, ok := values[run][k]
				if !ok {
					continue
				}
				v, se, err := aggregateDocs(m.Task, spec, g, docs)
				if err != nil {
					return fmt.Errorf("task %s: metric %s, filter %s: aggregation %s: %w", m.Task.Name, spec.Metric, f.Name, spec.Aggregation, err)
				}
				rs[string(k)], rs[k.Stderr()] = jsonNum(v), jsonNum(se)
				keys, aggregated = append(keys, string(k)), append(aggregated, string(k))
			}
		}
		rs["score_keys"], rs[KeyCorpusAggregated] = keys, aggregated
	}
	return nil
}

// aggregateDocs folds one run's doc values of a metric: a corpus metric in
// Go with lm-eval's bootstrap standard error (evaluator_utils: resamples
// min(bootstrap_iters, 100), none for one doc), else the Python aggregation
// (NaN standard error).
func aggregateDocs(task TaskSpec, spec datasets.MetricSpec, g Grader, docs []json.RawMessage) (value, stderr float64, err error) {
	cm, ok := spec.Corpus()
	if !ok {
		agg, ok := g.(PythonAggregator)
		if !ok {
			return 0, 0, fmt.Errorf("task %s: its grader runs no Python aggregation", task.Name)
		}
		v, err := agg.AggregatePython(task, spec, docs)
		return v, math.NaN(), err
	}
	pairs := make([]any, len(docs))
	for i, d := range docs {
		if pairs[i], err = pyjson.Decode(d); err != nil {
			return 0, 0, fmt.Errorf("doc value %d: %w", i, err)
		}
	}
	items, err := textmetrics.ItemsFromPairs(pairs)
	if err != nil {
		return 0, 0, err
	}
	segs, err := cm.Statistic.Segments(items)
	if err != nil {
		return 0, 0, err
	}
	score := func(sample [][]float64) float64 { return cm.Statistic.Score(textmetrics.Sum(sample)) }
	value, stderr = score(segs), math.NaN()
	if len(segs) > 1 {
		// Resampling docs resamples their statistics: the same scores as
		// lm-eval's re-scoring of the resampled text, without the text.
		stderr = loglik.BootstrapStderr(score, segs, min(loglik.BootstrapIters, cm.MaxBootstrapIters))
	}
	return value, stderr, nil
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
