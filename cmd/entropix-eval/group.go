package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports"
)

// writeGroupSummary computes the group's aggregate_metric_list after its
// tasks ran into out/<task>, writes out/group_results.json and prints its
// table; a group (or tag) without aggregates prints nothing.
func writeGroupSummary(w io.Writer, cfg eval.Config, out string) error {
	res, err := eval.WriteGroupResults(cfg, out)
	if err != nil || res == nil {
		return err
	}
	fmt.Fprintf(w, "group aggregates (%s)\n", filepath.Join(out, eval.GroupResultsFile))
	for _, key := range res.Order {
		g := res.Groups[key]
		fmt.Fprintf(w, "%-48s", key)
		keys, _ := g["score_keys"].([]string)
		for _, k := range keys {
			sk := reports.ScoreKey(k)
			fmt.Fprintf(w, " %s %s ±%s", k, pct(g[k]), pct(g[sk.Metric()+"_stderr,"+sk.Filter()]))
		}
		fmt.Fprintf(w, " (n=%v)\n", g["sample_len"])
	}
	return nil
}
