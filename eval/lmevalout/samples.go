package lmevalout

import (
	"fmt"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/reports"
)

// scoreOrder is the run's (metric, filter) pairs in lm-eval's order, grouped
// by filter: filters in the task's filter_list order (evaluator.py loops over
// a request's filtered_resps, built in that order), each filter's metrics in
// metric_list order (process_results fills its dict so). Pairs the task spec
// does not name (runs scored without one) follow, sorted.
func scoreOrder(spec eval.TaskSpec, samples []map[string]any) (filters []string, metrics map[string][]string) {
	present := map[reports.ScoreKey]bool{}
	for _, s := range samples {
		for _, k := range scoreKeys(s) {
			present[reports.ScoreKey(k)] = true
		}
	}
	var keys []reports.ScoreKey
	for _, f := range spec.Filters {
		for _, m := range spec.Metrics {
			if k := reports.KeyOf(m.Metric, f.Name); present[k] && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	var rest []reports.ScoreKey
	for k := range present {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	metrics = map[string][]string{}
	for _, k := range append(keys, rest...) {
		f := k.Filter()
		if _, seen := metrics[f]; !seen {
			filters = append(filters, f)
		}
		metrics[f] = append(metrics[f], k.Metric())
	}
	return filters, metrics
}

// sampleLines are samples_<task>_<date>.jsonl's lines as evaluator.py logs
// them: filter by filter, each filter's docs in run order, each line the
// example dict with lm-eval's keys in its insertion order (doc_id, doc,
// target, arguments, resps, filtered_resps, filter, metrics, doc_hash,
// prompt_hash, target_hash, then each metric's value) after
// save_results_samples rewrote arguments as gen_args_i/arg_j and the
// responses as strings. docs are the run's samples grouped by docLines.
func (r run) sampleLines(docs [][]map[string]any) ([]*pyjson.Dict, error) {
	filters, metrics := scoreOrder(r.m.Task, r.samples)
	gen := r.genKwargs()
	ints, err := intResults(r.m.Task.ProcessResults)
	if err != nil {
		return nil, err
	}
	byFilter := make([][]*pyjson.Dict, len(filters))
	for i, lines := range docs {
		s := lines[0]
		docID, err := pyInt(s["doc_id"])
		if err != nil {
			return nil, fmt.Errorf("sample %d: doc_id: %w", i, err)
		}
		prompt, _ := s["prompt"].(string)
		target := fmt.Sprint(s["target"])
		docText, err := pyjson.DumpsIndent(s["doc"], 2)
		if err != nil {
			return nil, fmt.Errorf("sample %d: doc: %w", i, err)
		}
		docHash, promptHash, targetHash := HashString(string(docText)), HashString(prompt), HashString(target)
		if r.m.Task.OutputType != "" { // one request per choice, no filters
			line, err := scoredLine(s, docID, target, docHash, promptHash, targetHash, metrics[filters[0]])
			if err != nil {
				return nil, err
			}
			byFilter[0] = append(byFilter[0], line)
			continue
		}
		args := pyjson.NewDict("gen_args_0", pyjson.NewDict("arg_0", prompt, "arg_1", gen))
		resps := [][]string{responses(lines)}
		for fi, f := range filters {
			answer, values, err := docAnswer(lines, f, metrics[f])
			if err != nil {
				return nil, err
			}
			line := pyjson.NewDict(
				"doc_id", docID,
				"doc", s["doc"],
				"target", target,
				"arguments", args,
				"resps", resps,
				"filtered_resps", []string{answer},
				"filter", f,
				"metrics", metrics[f],
				"doc_hash", docHash,
				"prompt_hash", promptHash,
				"target_hash", targetHash)
			pyInts, _ := s[eval.KeyPythonInts].([]any)
			for _, m := range metrics[f] {
				v := values[m]
				if x, ok := v.(float64); ok && (slices.Contains(ints, m) || slices.Contains(pyInts, any(m+","+f))) {
					v = int64(x)
				}
				line.Set(m, v)
			}
			byFilter[fi] = append(byFilter[fi], line)
		}
	}
	return slices.Concat(byFilter...), nil
}

// intResults are the metrics a task's ported process_results returns as
// Python ints (hooks.Port.IntResults), which lm-eval logs as 1, not 1.0; a
// Python process_results' ints are listed per samples.jsonl line
// (eval.KeyPythonInts).
func intResults(ref *hooks.PortRef) ([]string, error) {
	if ref == nil {
		return nil, nil
	}
	p, err := hooks.LookupPort(*ref)
	if err != nil {
		return nil, fmt.Errorf("process_results %s: %w", ref, err)
	}
	return p.IntResults, nil
}

// pyInt is a whole JSON number as the Python int lm-eval logs (doc_id).
func pyInt(v any) (int64, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%v is not a whole number", v)
	}
	return int64(f), nil
}
