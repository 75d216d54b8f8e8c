package runreport

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/entropix-eval/entropix-eval/reports"
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// Gate is the score key whose drops fail the gate (default: the task's
	// first, e.g. exact_match,strict-match).
	Gate reports.ScoreKey
	// Alpha is the family-wise significance level of the gate (default 0.05).
	Alpha     float64
	Bootstrap reports.BootstrapOptions
}

// Comparison is run B (new) against run A (old), sampler by sampler.
type Comparison struct {
	RunA, RunB string
	Task       string
	Gate       reports.ScoreKey
	Alpha      float64
	// Rows compare each sampler present in both runs (SamplerA = SamplerB = the
	// label; AccuracyA is the new run, AccuracyB the old one), per filter. PHolm
	// is adjusted within each filter over the samplers.
	Rows []reports.ComparisonRow
	// Regressions are the gate filter's rows where the new run is worse and the
	// Holm-adjusted McNemar p is below Alpha.
	Regressions []reports.ComparisonRow
	// OnlyA and OnlyB list samplers present in one run only (not compared).
	OnlyA, OnlyB []string
	Notes        []string
}

// Compare pairs two run directories of the same task on their common problems
// (problem ids), sampler by sampler, seeds pooled as in a report: dirB is the
// new run (tonight), dirA the reference (last night).
func Compare(dirA, dirB string, opt CompareOptions) (*Comparison, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("compare: alpha %v, want (0, 1)", opt.Alpha)
	}
	a, err := loadRun(dirA)
	if err != nil {
		return nil, err
	}
	b, err := loadRun(dirB)
	if err != nil {
		return nil, err
	}
	keys := reports.ScoreKeys(b.results)
	if len(keys) == 0 {
		return nil, fmt.Errorf("compare: %s has no scores", dirB)
	}
	if opt.Gate == "" {
		opt.Gate = keys[0]
	}
	if !slices.Contains(keys, opt.Gate) {
		return nil, fmt.Errorf("compare: gate %q is not a score of %s (scores: %q)", opt.Gate, dirB, keys)
	}
	ta, tb := a.task(), b.task()
	if ta != tb && ta != "" && tb != "" {
		return nil, fmt.Errorf("compare: %s is task %q but %s is task %q; compare runs of the same task", dirA, ta, dirB, tb)
	}
	c := &Comparison{RunA: dirA, RunB: dirB, Task: tb, Gate: opt.Gate, Alpha: opt.Alpha}
	if n := promptMismatches(a.results, b.results); n > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d problems have different prompt hashes in the two runs (prompt or template changed).", n))
	}
	ga := groupBySampler(a.results, a.samplerOrder())
	gb := groupBySampler(b.results, b.samplerOrder())
	inA := map[string]*samplerRows{}
	for _, g := range ga {
		inA[g.label] = g
	}
	inB := map[string]bool{}
	for _, f := range keys {
		var family []reports.ComparisonRow
		for _, g := range gb {
			inB[g.label] = true
			old := inA[g.label]
			if old == nil {
				continue
			}
			row, err := reports.Compare(g.pooled, old.pooled, f, opt.Bootstrap)
			if err != nil {
				return nil, fmt.Errorf("compare sampler %q: %w", g.label, err)
			}
			family = append(family, row)
		}
		if err := reports.AdjustHolm(family); err != nil {
			return nil, err
		}
		c.Rows = append(c.Rows, family...)
	}
	for _, g := range ga {
		if !inB[g.label] {
			c.OnlyA = append(c.OnlyA, g.label)
		}
	}
	for _, g := range gb {
		if inA[g.label] == nil {
			c.OnlyB = append(c.OnlyB, g.label)
		}
	}
	if len(c.Rows) == 0 {
		return nil, fmt.Errorf("compare: %s and %s share no sampler (A: %q, B: %q)", dirA, dirB, c.OnlyA, c.OnlyB)
	}
	for _, r := range c.Rows {
		if r.Score == opt.Gate && r.Difference < 0 && r.PHolm < opt.Alpha {
			c.Regressions = append(c.Regressions, r)
		}
	}
	return c, nil
}

// promptMismatches counts problems whose prompt hash differs between the runs.
func promptMismatches(a, b []reports.ResultRow) int {
	ha := map[int32]string{}
	for i := range a {
		ha[a[i].ProblemID] = a[i].PromptHash
	}
	seen := map[int32]bool{}
	n := 0
	for i := range b {
		id := b[i].ProblemID
		if h, ok := ha[id]; ok && !seen[id] && h != b[i].PromptHash {
			n++
		}
		seen[id] = true
	}
	return n
}

// Err returns an error naming every significant drop, or nil: the gate.
func (c *Comparison) Err() error {
	if len(c.Regressions) == 0 {
		return nil
	}
	parts := make([]string, len(c.Regressions))
	for i, r := range c.Regressions {
		parts[i] = fmt.Sprintf("%s %s %.1f%% → %.1f%% (Δ %+.1f pp, Holm p %s)", r.SamplerA, r.Score,
			100*r.AccuracyB, 100*r.AccuracyA, 100*r.Difference, formatP(r.PHolm))
	}
	return fmt.Errorf("accuracy dropped significantly (α = %g): %s", c.Alpha, strings.Join(parts, "; "))
}

// WriteTable prints the paired table as aligned text.
func (c *Comparison) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "task %s\nA (reference): %s\nB (new):       %s\n\n", c.Task, c.RunA, c.RunB)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "sampler\tfilter\tn\tA %\tB %\tΔ pp\t95% CI\tB+/A+\tp\tHolm p\t\t")
	for _, r := range c.Rows {
		mark := ""
		if r.Score == c.Gate && r.Difference < 0 && r.PHolm < c.Alpha {
			mark = "DROP"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%+.1f\t[%+.1f, %+.1f]\t%d/%d\t%s\t%s\t%s\t\n",
			r.SamplerA, r.Score, r.N, 100*r.AccuracyB, 100*r.AccuracyA, 100*r.Difference,
			100*r.CILow, 100*r.CIHigh, r.McNemarB, r.McNemarC, formatP(r.PValue), formatP(r.PHolm), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range c.OnlyA {
		fmt.Fprintf(w, "only in A (not compared): %s\n", s)
	}
	for _, s := range c.OnlyB {
		fmt.Fprintf(w, "only in B (not compared): %s\n", s)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "\nΔ = B − A on common problems (paired bootstrap over problems). B+/A+: pairs only B / only A got right.\n"+
		"p: McNemar; Holm p: adjusted within each filter over samplers. Gate: %s, α = %g.\n", c.Gate, c.Alpha)
	_, err := fmt.Fprintf(w, "%d significant drop(s).\n", len(c.Regressions))
	return err
}

func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
