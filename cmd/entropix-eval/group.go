package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

// writeGroupSummary computes the group's aggregate_metric_list after its
// tasks ran into out/<task>, writes out/group_results.json and prints its
// table; a group (or tag) without aggregates prints nothing.
func writeGroupSummary(w io.Writer, cfg eval.Config, out string) error {
	res, err := eval.WriteGroupResults(cfg, out)
	if err != nil || res == nil {
		return err
	}
	fmt.Fprintf(w, "group aggregates (%s)\n%s", filepath.Join(out, eval.GroupResultsFile), groupTable(res))
	return nil
}

// groupTable has a row per group and run and a column per score key any
// group reports (in first-seen order), "mean ± SE" in each, then the number
// of samples.
func groupTable(res *eval.GroupResults) string {
	var keys []string
	for _, key := range res.Order {
		ks, _ := res.Groups[key]["score_keys"].([]string)
		for _, k := range ks {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	rows := [][]string{append(append([]string{"group|run"}, keys...), "n")}
	right := []bool{false}
	for range keys {
		right = append(right, true)
	}
	right = append(right, true)
	for _, key := range res.Order {
		g := res.Groups[key]
		row := []string{key}
		for _, k := range keys {
			cell := ""
			if _, ok := g[k]; ok {
				cell = scoreWithSE(reports.ScoreKey(k), g[k], g[reports.ScoreKey(k).Stderr()])
			}
			row = append(row, cell)
		}
		rows = append(rows, append(row, fmt.Sprint(g["sample_len"])))
	}
	return runreport.AlignedTable(rows, right, false)
}
