package runreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// resultsJSONFile is the run's results in lm-eval's layout, which alone
// holds the scores a Python aggregation computed (results.arrow has one
// number per response; these have none).
const resultsJSONFile = "results.json"

// NoStderrPython is what a table shows where a Python aggregation's score
// would have its standard error: lm-eval reports "N/A" for an aggregation
// it does not know, and nothing valid stands in for it.
const NoStderrPython = "n/a: Python aggregation"

// pythonAggregated reads results.json's Python-aggregated scores per
// sampler (each the mean of its seeds' values, in run order), nil when the
// run has none.
func pythonAggregated(dir string) (map[string][]model.AggregatedScore, error) {
	b, err := os.ReadFile(filepath.Join(dir, resultsJSONFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rj struct {
		Results map[string]map[string]any `json:"results"`
		Order   []string                  `json:"run_order"`
	}
	if err := json.Unmarshal(b, &rj); err != nil {
		return nil, fmt.Errorf("%s: %w", resultsJSONFile, err)
	}
	type sum struct {
		total float64
		n     int
	}
	sums := map[string]map[string]*sum{}
	var out map[string][]model.AggregatedScore
	for _, run := range rj.Order {
		rs := rj.Results[run]
		keys, _ := rs["python_aggregated"].([]any)
		sampler, _ := rs["sampler"].(string)
		for _, k := range keys {
			key, _ := k.(string)
			v, ok := rs[key].(float64)
			if !ok {
				continue
			}
			if out == nil {
				out = map[string][]model.AggregatedScore{}
			}
			if sums[sampler] == nil {
				sums[sampler] = map[string]*sum{}
			}
			s, seen := sums[sampler][key]
			if !seen {
				s = &sum{}
				sums[sampler][key] = s
				out[sampler] = append(out[sampler], model.AggregatedScore{Key: key})
			}
			s.total += v
			s.n++
		}
	}
	for sampler, scores := range out {
		for i := range scores {
			s := sums[sampler][scores[i].Key]
			scores[i].Value = s.total / float64(s.n)
		}
	}
	return out, nil
}

// pythonAggregatedNote says which scores a report shows without statistics.
func pythonAggregatedNote(samplers []model.Sampler) string {
	var keys []string
	for _, s := range samplers {
		for _, a := range s.PythonAggregated {
			if !slices.Contains(keys, a.Key) {
				keys = append(keys, a.Key)
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: aggregated by the task's Python function over every doc's value (lists per doc, in samples.jsonl); %s: no standard error, interval or paired test (lm-eval reports N/A), and no figures.",
		strings.Join(keys, ", "), NoStderrPython)
}
