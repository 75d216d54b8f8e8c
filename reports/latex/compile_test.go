package latex

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pdflatex finds Debian's pdflatex (texlive-latex-base); a missing one skips
// the test unless CI or ENTROPIX_REQUIRE_TEX asks for it.
func pdflatex(t *testing.T) string {
	if p, err := exec.LookPath("pdflatex"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" || os.Getenv("ENTROPIX_REQUIRE_TEX") != "" {
		t.Fatal("no pdflatex: apt-get install -y texlive-latex-base texlive-latex-recommended")
	}
	t.Skip("no pdflatex (apt-get install -y texlive-latex-base texlive-latex-recommended)")
	return ""
}

// paperReport is a report as wide as a real one: GSM8K's three filters, five
// samplers with the labels the CLI writes, three seeds.
func paperReport() *model.Report {
	filters := []string{"strict-match", "flexible-extract", "numeric"}
	labels := []string{"greedy", "entropix:frog", "min_p(min_p=0.1,temperature=1)", "top_p(top_p=0.95)", "temperature(T=0.7)"}
	r := &model.Report{RunDir: "runs/nightly/2026-11-22", Task: "gsm8k_cot_llama", Baseline: "greedy",
		Filters: filters, PrimaryFilter: filters[0]}
	for i, l := range labels {
		s := model.Sampler{Label: l, Seeds: []int64{0, 1, 2}, TruncationRate: 0.021, MeanGenTokens: 187.4}
		for _, f := range filters {
			acc := 0.389 + 0.011*float64(i)
			s.Filters = append(s.Filters, model.FilterAccuracy{Filter: f, SeedMean: acc, SeedSD: 0.0123,
				ClusteredAccuracy: reports.ClusteredAccuracy{N: 1319, Mean: acc, SE: 0.0134, WithinSD: 0.21}})
		}
		r.Samplers = append(r.Samplers, s)
		if i == 0 {
			continue
		}
		for _, f := range filters {
			row := reports.ComparisonRow{Sampler: l, Baseline: "greedy", Filter: f, Primary: f == filters[0], Alternative: reports.TwoSided,
				NProblems: 1319, Delta: -0.0214 + 0.01*float64(i), CILow: -0.0401, CIHigh: 0.0312, P: 0.0412, PTest: reports.SignFlipExact,
				MDE80: 0.0241, MDEAlpha: 0.0125}
			if row.Primary {
				row.PHolm, row.HolmFamily, row.HolmM = reports.Some(0.0824), "sweep:nightly_2026-11-22", 4
			}
			r.Comparisons = append(r.Comparisons, row)
		}
	}
	return r
}

// The tables compile in a one-column and a two-column article without an
// overfull box: they fit the column a paper pastes them into.
func TestTablesCompileWithoutOverfullBoxes(t *testing.T) {
	bin := pdflatex(t)
	var tables bytes.Buffer
	require.NoError(t, AccuracyTable(&tables, paperReport(), Options{Label: "main"}))
	require.NoError(t, ComparisonTable(&tables, paperReport(), Options{Label: "main"}))
	require.NoError(t, SecondaryTable(&tables, paperReport(), Options{Label: "main"}))
	require.NoError(t, SweepTable(&tables, "runs/nightly", "gsm8k_cot", sweepRuns(), Options{Label: "main"}))
	// A one-sided gate's table: one bound per row.
	gate := paperReport()
	for i := range gate.Comparisons {
		gate.Comparisons[i].Alternative, gate.Comparisons[i].CILow = reports.Less, -1
	}
	require.NoError(t, ComparisonTable(&tables, gate, Options{Label: "gate"}))
	for _, class := range []string{`\documentclass{article}`, `\documentclass[twocolumn]{article}`} {
		t.Run(class, func(t *testing.T) {
			dir := t.TempDir()
			doc := class + "\n\\usepackage{booktabs,array}\n\\begin{document}\n" + tables.String() +
				"See Table~\\ref{tab:main-accuracy} and Table~\\ref{tab:main-paired}.\n\\end{document}\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "paper.tex"), []byte(doc), 0o644))
			cmd := exec.Command(bin, "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "pdflatex failed:\n%s", out)
			log, err := os.ReadFile(filepath.Join(dir, "paper.log"))
			require.NoError(t, err)
			for _, bad := range regexp.MustCompile(`(?m)^(Overfull|Underfull) \\[hv]box.*$`).FindAllString(string(log), -1) {
				assert.False(t, strings.HasPrefix(bad, "Overfull"), "%s", bad)
			}
			assert.FileExists(t, filepath.Join(dir, "paper.pdf"))
		})
	}
}
