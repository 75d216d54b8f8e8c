package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

func printSummary(w io.Writer, dir string, m *eval.Manifest, perSeed bool) error {
	fmt.Fprintf(w, "run directory %s (%s)\n", dir, m.Status)
	if !perSeed {
		return nil
	}
	var rj struct {
		Results map[string]map[string]any `json:"results"`
		Order   []string                  `json:"run_order"`
	}
	b, err := os.ReadFile(filepath.Join(dir, eval.ResultsJSONFile))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &rj); err != nil {
		return fmt.Errorf("read %s: %w", eval.ResultsJSONFile, err)
	}
	fmt.Fprint(w, perSeedTable(rj.Results, rj.Order))
	return nil
}

// perSeedTable is one row per sampler × seed and a column per score key, each
// cell a percentage with its standard error in percentage points, aligned.
func perSeedTable(results map[string]map[string]any, order []string) string {
	var keys []string
	if len(order) > 0 {
		list, _ := results[order[0]]["score_keys"].([]any)
		for _, k := range list {
			if s, ok := k.(string); ok {
				keys = append(keys, s)
			}
		}
	}
	rows := [][]string{append([]string{"sampler/seed"}, keys...)}
	right := []bool{false}
	for range keys {
		right = append(right, true)
	}
	for _, run := range order {
		r := results[run]
		_, label, _ := strings.Cut(run, "|")
		row := []string{label}
		aggregated, _ := r[eval.KeyCorpusAggregated].([]any)
		for _, k := range keys {
			sk := reports.ScoreKey(k)
			if _, corpus := hooks.LookupCorpusMetric(sk.Metric()); !corpus && slices.Contains(aggregated, any(k)) {
				row = append(row, pct(r[k])+" ("+runreport.NoStderrPython+")")
				continue
			}
			row = append(row, scoreWithSE(sk, r[k], r[sk.Stderr()]))
		}
		rows = append(rows, row)
	}
	return runreport.AlignedTable(rows, right, false)
}

// scoreWithSE writes a score and its standard error: a fraction in percent,
// a corpus metric (bleu, chrf, ter) on its own 0–100 scale.
func scoreWithSE(k reports.ScoreKey, v, se any) string {
	if _, corpus := hooks.LookupCorpusMetric(k.Metric()); corpus {
		return points(v) + " ± " + points(se)
	}
	return pct(v) + " ± " + pct(se)
}

// points writes a corpus metric (bleu, chrf, ter: sacrebleu's 0–100 scale)
// with two decimals.
func points(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// pct writes a fraction as a percentage, marked: 0.4512 → "45.1%".
func pct(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}
