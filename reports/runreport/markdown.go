package runreport

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// WriteMarkdown writes the accuracy table in lm-evaluation-harness's
// Markdown layout (Tasks | Filter | n-shot | Metric | Value | Stderr), one row
// per sampler and filter, with a Sampler column after Tasks: run prints it at
// the end and report writes it to tables/results.md. Values are pooled over
// seeds, as fractions like lm-eval's; columns are padded to their widest cell
// (as lm-eval's pytablewriter does), so the table reads aligned as plain text
// whatever the labels' lengths.
func WriteMarkdown(w io.Writer, r *model.Report) error {
	rows := [][]string{{"Tasks", "Sampler", "Filter", "n-shot", "Metric", "", "Value", "", "Stderr"}}
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
			rows = append(rows, []string{mdEscape(task), mdEscape(s.Label), mdEscape(filter), shots, mdEscape(metric),
				"↑", fmt.Sprintf("%.4f", f.Mean), "±", se})
		}
		for i, a := range s.CorpusAggregated {
			k := reports.ScoreKey(a.Key)
			task := ""
			if i == 0 && len(s.Filters) == 0 {
				task = r.Task
			}
			pm, se := "", a.NoSE
			if !math.IsNaN(a.SE) {
				pm, se = "±", fmt.Sprintf("%.4f", a.SE)
			}
			rows = append(rows, []string{mdEscape(task), mdEscape(s.Label), mdEscape(k.Filter()), shots, mdEscape(k.Metric()),
				"↑", fmt.Sprintf("%.4f", a.Value), pm, se})
		}
	}
	rightAligned := []bool{false, false, false, true, false, false, true, false, true}
	_, err := io.WriteString(w, AlignedTable(rows, rightAligned, true))
	return err
}

// AlignedTable lays rows out as a Markdown table whose columns are padded to
// their widest cell (in runes); rows[0] is the header. rightAligned marks the
// numeric columns. Without markdown, the cells are separated by two spaces and
// no rule is drawn: a plain-text table.
func AlignedTable(rows [][]string, rightAligned []bool, markdown bool) string {
	if len(rows) == 0 {
		return ""
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c), 1)
		}
	}
	pad := func(c string, i int) string {
		fill := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
		if i < len(rightAligned) && rightAligned[i] {
			return fill + c
		}
		return c + fill
	}
	var b strings.Builder
	line := func(row []string) {
		var l strings.Builder
		for i, c := range row {
			switch {
			case markdown:
				l.WriteString("|" + pad(c, i))
			case i > 0:
				l.WriteString("  " + pad(c, i))
			default:
				l.WriteString(pad(c, i))
			}
		}
		if markdown {
			l.WriteString("|")
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(rows[0])
	if markdown {
		for i, wd := range widths {
			rule := strings.Repeat("-", wd)
			if i < len(rightAligned) && rightAligned[i] {
				rule = rule[:wd-1] + ":"
			}
			b.WriteString("|" + rule)
		}
		b.WriteString("|\n")
	}
	for _, row := range rows[1:] {
		line(row)
	}
	return b.String()
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
