package runreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/entropix-eval/entropix-eval/rundir"
)

// NoStderrPython is what a table shows where a Python aggregation's score
// would have its standard error: lm-eval reports "N/A" for an aggregation
// it does not know, and nothing valid stands in for it.
const NoStderrPython = "n/a: Python aggregation"

// pythonAggregated reads results.json's Python-aggregated scores (only it
// holds them: results.arrow has no per-response score for them): their
// keys in run order, and per sampler each key's value, the mean of its
// seeds' values; no keys when the run has none.
func pythonAggregated(dir string) ([]string, map[string]map[string]float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, rundir.ResultsJSONFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var rj struct {
		Results map[string]map[string]any `json:"results"`
		Order   []string                  `json:"run_order"`
	}
	if err := json.Unmarshal(b, &rj); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rundir.ResultsJSONFile, err)
	}
	type sum struct {
		total float64
		n     int
	}
	var keys []string
	sums := map[string]map[string]*sum{}
	for _, run := range rj.Order {
		rs := rj.Results[run]
		aggregated, _ := rs["python_aggregated"].([]any)
		sampler, _ := rs["sampler"].(string)
		for _, k := range aggregated {
			key, _ := k.(string)
			v, ok := rs[key].(float64)
			if !ok {
				continue
			}
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
			if sums[sampler] == nil {
				sums[sampler] = map[string]*sum{}
			}
			if sums[sampler][key] == nil {
				sums[sampler][key] = &sum{}
			}
			sums[sampler][key].total += v
			sums[sampler][key].n++
		}
	}
	values := map[string]map[string]float64{}
	for sampler, byKey := range sums {
		values[sampler] = map[string]float64{}
		for k, s := range byKey {
			values[sampler][k] = s.total / float64(s.n)
		}
	}
	return keys, values, nil
}

// addPythonAggregated gives the report the run's Python-aggregated scores:
// each sampler's in the order of keys (NaN where a sampler has none), and a
// note saying why they come without statistics.
func addPythonAggregated(rep *model.Report, dir string) error {
	keys, values, err := pythonAggregated(dir)
	if err != nil || len(keys) == 0 {
		return err
	}
	rep.PythonAggregated = keys
	for i := range rep.Samplers {
		s := &rep.Samplers[i]
		for _, k := range keys {
			v, ok := values[s.Label][k]
			if !ok {
				v = math.NaN()
			}
			s.PythonAggregated = append(s.PythonAggregated, model.AggregatedScore{Key: k, Value: v})
		}
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s: aggregated by the task's Python function over every doc's value (lists per doc, in samples.jsonl); %s: no standard error, interval or paired test (lm-eval reports N/A), and no figures.",
		strings.Join(keys, ", "), NoStderrPython))
	return nil
}
