package runreport

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// WriteMarkdown writes the accuracy table in lm-evaluation-harness's
// Markdown layout (Tasks | Filter | n-shot | Metric | Value | Stderr), one row
// per sampler and filter, with a Sampler column after Tasks: run prints it at
// the end and report writes it to tables/results.md.
func WriteMarkdown(w io.Writer, r *model.Report) error {
	var b strings.Builder
	b.WriteString("|Tasks|Sampler|Filter|n-shot|Metric| |Value| |Stderr|\n")
	b.WriteString("|-----|-------|------|-----:|------|---|----:|---|-----:|\n")
	shots := "-"
	if r.FewShot >= 0 {
		shots = fmt.Sprint(r.FewShot)
	}
	for _, s := range r.Samplers {
		for i, f := range s.Filters {
			task := ""
			if i == 0 {
				task = r.Task
			}
			se := "N/A"
			if !math.IsNaN(f.SE) {
				se = fmt.Sprintf("%.4f", f.SE)
			}
			// A score key is lm-eval's "metric,filter": its two columns.
			k := reports.ScoreKey(f.Filter)
			filter, metric := k.Filter(), k.Metric()
			if filter == "" {
				filter, metric = f.Filter, "exact_match"
			}
			fmt.Fprintf(&b, "|%s|%s|%s|%s|%s|↑|%.4f|±|%s|\n",
				mdEscape(task), mdEscape(s.Label), mdEscape(filter), shots, mdEscape(metric), f.Mean, se)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
