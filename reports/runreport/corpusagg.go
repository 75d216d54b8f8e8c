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

	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/entropix-eval/entropix-eval/rundir"
)

// NoStderrPython is what a table shows where a Python aggregation's score
// would have its standard error: lm-eval reports "N/A" for an aggregation
// it does not know, and nothing valid stands in for it.
const NoStderrPython = "n/a: Python aggregation"

// NoStderrSeeds is what a table shows where a corpus metric's bootstrap
// standard error would be, for a sampler run with several seeds: each
// seed's bootstrap resamples the same docs, so the seeds' errors are not
// independent and do not combine into one for their mean.
const NoStderrSeeds = "n/a: several seeds"

// NoStderrOneDoc: a bootstrap over one doc has nothing to resample
// (lm-eval writes "N/A").
const NoStderrOneDoc = "n/a: one doc"

// corpusKeys are the results.json keys naming a run's corpus-aggregated
// scores; python_aggregated is what results.json called them before bleu,
// chrf and ter joined the Python aggregations there.
var corpusKeys = []string{"corpus_aggregated", "python_aggregated"}

// corpusScores are a run's corpus-aggregated scores, which only
// results.json holds (results.arrow has no per-response score for them):
// their keys in run order, and per sampler each key's seeds' values and
// standard errors (NaN where there is none).
type corpusScores struct {
	keys  []string
	seeds map[string]map[string][][2]float64 // sampler → key → (value, stderr) per seed
}

// readCorpusScores reads them from a run directory's results.json (none
// when it has no such file).
func readCorpusScores(dir string) (corpusScores, error) {
	b, err := os.ReadFile(filepath.Join(dir, rundir.ResultsJSONFile))
	if errors.Is(err, fs.ErrNotExist) {
		return corpusScores{}, nil
	}
	if err != nil {
		return corpusScores{}, err
	}
	var rj struct {
		Results map[string]map[string]any `json:"results"`
		Order   []string                  `json:"run_order"`
	}
	if err := json.Unmarshal(b, &rj); err != nil {
		return corpusScores{}, fmt.Errorf("%s: %w", rundir.ResultsJSONFile, err)
	}
	var keys []string
	seeds := map[string]map[string][][2]float64{}
	for _, run := range rj.Order {
		rs := rj.Results[run]
		var aggregated []any
		for _, name := range corpusKeys {
			if a, ok := rs[name].([]any); ok {
				aggregated = a
				break
			}
		}
		sampler, _ := rs["sampler"].(string)
		for _, k := range aggregated {
			key, _ := k.(string)
			v, ok := rs[key].(float64)
			if !ok {
				continue
			}
			se, ok := rs[reports.ScoreKey(key).Stderr()].(float64)
			if !ok {
				se = math.NaN()
			}
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
			if seeds[sampler] == nil {
				seeds[sampler] = map[string][][2]float64{}
			}
			seeds[sampler][key] = append(seeds[sampler][key], [2]float64{v, se})
		}
	}
	return corpusScores{keys: keys, seeds: seeds}, nil
}

// addCorpusAggregated gives the report the run's corpus-aggregated scores:
// each sampler's in the order of keys (NaN where a sampler has none), the
// mean over its seeds, with the standard error where one seed has one, and
// a note saying why they come without paired statistics.
func addCorpusAggregated(rep *model.Report, cs corpusScores) {
	keys, seeds := cs.keys, cs.seeds
	if len(keys) == 0 {
		return
	}
	rep.CorpusAggregated = keys
	var python, corpus []string
	for _, k := range keys {
		if _, ok := hooks.LookupCorpusMetric(reports.ScoreKey(k).Metric()); ok {
			corpus = append(corpus, k)
		} else {
			python = append(python, k)
		}
	}
	for i := range rep.Samplers {
		s := &rep.Samplers[i]
		for _, k := range keys {
			a := model.AggregatedScore{Key: k, Value: math.NaN(), SE: math.NaN(), Points: slices.Contains(corpus, k)}
			switch runs := seeds[s.Label][k]; {
			case len(runs) == 1:
				a.Value, a.SE = runs[0][0], runs[0][1]
				if math.IsNaN(a.SE) {
					a.NoSE = NoStderrOneDoc
				}
			case len(runs) > 1:
				sum := 0.0
				for _, r := range runs {
					sum += r[0]
				}
				a.Value, a.NoSE = sum/float64(len(runs)), NoStderrSeeds
			}
			if !a.Points {
				a.SE, a.NoSE = math.NaN(), NoStderrPython
			}
			s.CorpusAggregated = append(s.CorpusAggregated, a)
		}
	}
	if len(corpus) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: corpus statistics (sacrebleu's scale, 0–100) over every doc's reference and response, as lm-eval's aggregations compute them; ± lm-eval's bootstrap standard error (100 resamples) for a sampler with one seed; against the baseline, a paired approximate randomization test over docs where both ran as many seeds; no interval, summary row or figure (no per-problem score).",
			strings.Join(corpus, ", ")))
	}
	if len(python) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: aggregated by the task's Python function over every doc's value (lists per doc, in samples.jsonl); %s: no standard error, interval or paired test (lm-eval reports N/A), and no figures.",
			strings.Join(python, ", "), NoStderrPython))
	}
}
