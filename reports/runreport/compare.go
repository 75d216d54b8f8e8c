package runreport

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/entropix-eval/entropix-eval/reports"
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// PrimaryFilter is the filter whose significant drops fail the gate and
	// whose comparisons form the Holm family; default the new run's sweep
	// primary_filter, else the task's first filter.
	PrimaryFilter string
	// Alpha is the family-wise significance level of the gate (default 0.05).
	Alpha float64
	// HolmFamily is the Holm family's scope (reports.HolmTask by default;
	// reports.HolmRun adds the other filters; CompareSweeps spans tasks).
	HolmFamily string
	// Paired.Alternative Less makes the gate a one-sided test for drops.
	Paired reports.PairedOptions
	// Pairs pair samplers by hand, "A=B": sampler A of the reference run with
	// sampler B of the new one, before pairing by spec, then by label.
	Pairs []string
}

// Pair is one sampler of the new run and the reference it was compared with.
type Pair struct {
	A, B string
	// How: PairedBySpec, PairedByLabel (the spec changed) or PairedByHand.
	How string
}

// Comparison is run B (new) against run A (old), sampler by sampler.
type Comparison struct {
	RunA, RunB string
	Task       string
	// Name is the task's directory name when two sweeps are compared.
	Name          string
	PrimaryFilter string
	Alpha         float64
	Alternative   string
	// Rows compare each sampler of B with the sampler of A that has the same
	// canonical spec (Sampler: B's label, Baseline: A's label), per filter.
	// PHolm is adjusted within the family each row names (HolmFamily).
	Rows []reports.ComparisonRow
	// Regressions are the primary filter's rows where the new run is worse and
	// the Holm-adjusted p is below Alpha.
	Regressions []reports.ComparisonRow
	// Pairs are the samplers compared, in the new run's order.
	Pairs []Pair
	// Corpus are the paired tests of corpus metrics (bleu, chrf, ter) of
	// each pair of samplers that ran one seed on both sides.
	Corpus []CorpusComparison
	// OnlyA and OnlyB list samplers present in one run only (not compared).
	OnlyA, OnlyB []string
	Notes        []string
}

// Compare pairs two run directories of the same task on their common problems,
// sampler by sampler (by hand where opt.Pairs says, then by canonical spec, so
// a sampler named on the command line pairs with the same sampler written out
// in YAML, then by label where the spec changed, with a note), seeds and
// repeats averaged within a problem as in a report: dirB is the new run
// (tonight), dirA the reference (last night).
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
	ta, tb := a.task(), b.task()
	if ta != tb && ta != "" && tb != "" {
		return nil, fmt.Errorf("compare: %s is task %q but %s is task %q; compare runs of the same task", dirA, ta, dirB, tb)
	}
	sa, err := scoresOf(a)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dirA, err)
	}
	sb, err := scoresOf(b)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dirB, err)
	}
	primary, err := sb.primaryFilter(cmp.Or(opt.PrimaryFilter, b.manifest.Config.PrimaryFilter))
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	c := &Comparison{RunA: dirA, RunB: dirB, Task: tb, PrimaryFilter: primary, Alpha: opt.Alpha, Alternative: cmp.Or(opt.Paired.Alternative, reports.TwoSided)}
	if n := promptMismatches(a.results, b.results); n > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d problems have different prompt hashes in the two runs (prompt or template changed).", n))
	}
	pairs, onlyA, onlyB, notes, err := pairSamplers(a, b, opt.Pairs)
	if err != nil {
		return nil, err
	}
	c.OnlyA, c.OnlyB = onlyA, onlyB
	c.Notes = append(c.Notes, notes...)
	for _, p := range pairs {
		rows, err := compareAcross(sb, p.B, sa, p.A, primary, opt.Paired)
		if errors.Is(err, errNoCommonProblem) {
			c.Notes = append(c.Notes, fmt.Sprintf("%s shares no problem with the reference run: not compared.", p.B))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("compare sampler %q: %w", p.B, err)
		}
		c.Rows = append(c.Rows, rows...)
		c.Pairs = append(c.Pairs, Pair{A: p.A, B: p.B, How: p.How})
	}
	if c.Corpus, err = compareCorpus(a, b, pairs, opt.Paired.Bootstrap.Seed); err != nil {
		return nil, err
	}
	if len(c.Rows) == 0 && len(c.Corpus) == 0 {
		if len(sa.filters) == 0 || len(sb.filters) == 0 {
			return nil, fmt.Errorf("compare: %s and %s have no score to pair: no per-problem score, and no corpus metric (bleu, chrf, ter) both ran with one seed per sampler (a Python aggregation has no paired test)", dirA, dirB)
		}
		return nil, fmt.Errorf("compare: %s and %s share no sampler (A: %q, B: %q)", dirA, dirB, c.OnlyA, c.OnlyB)
	}
	if err := holmWithinRun(c.Rows, opt.HolmFamily, tb, dirB, opt.Alpha); err != nil {
		return nil, err
	}
	c.findRegressions()
	return c, nil
}

// findRegressions collects the rows the gate fails on.
func (c *Comparison) findRegressions() {
	c.Regressions = nil
	for _, r := range c.Rows {
		if c.isDrop(r) {
			c.Regressions = append(c.Regressions, r)
		}
	}
}

func (c *Comparison) isDrop(r reports.ComparisonRow) bool {
	return r.Primary && r.Delta < 0 && r.PHolm.Valid && r.PHolm.V < c.Alpha
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

// RegressionError is the gate's failure: a significant drop, not a broken
// comparison.
type RegressionError struct{ msg string }

func (e *RegressionError) Error() string { return e.msg }

// Err returns a *RegressionError naming every significant drop, or nil: the gate.
func (c *Comparison) Err() error {
	if len(c.Regressions) == 0 {
		return nil
	}
	parts := make([]string, len(c.Regressions))
	for i, r := range c.Regressions {
		parts[i] = fmt.Sprintf("%s %s %.1f%% → %.1f%% (Δ %s pp, Holm p %s)", r.Sampler, r.Filter,
			100*r.BaselineAcc, 100*r.SamplerAcc, reports.SignedPP(r.Delta), reports.FormatP(r.PHolm.V))
	}
	return &RegressionError{fmt.Sprintf("accuracy dropped significantly (α = %g): %s", c.Alpha, strings.Join(parts, "; "))}
}

// WriteTable prints the paired table as aligned text, the primary filter's
// headline sentences first.
func (c *Comparison) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "task %s\nA (reference): %s\nB (new):       %s\n\n", c.Task, c.RunA, c.RunB)
	for _, r := range c.Rows {
		if r.Primary {
			fmt.Fprintf(w, "%s\n", r.Headline())
		}
	}
	fmt.Fprintln(w)
	if len(c.Rows) > 0 {
		if err := WriteComparisonTable(w, c.Rows, c.isDrop); err != nil {
			return err
		}
	}
	for _, cc := range c.Corpus {
		fmt.Fprintf(w, "%s\n", cc.Line())
	}
	for _, p := range c.Pairs {
		if p.How == PairedByHand {
			fmt.Fprintf(w, "paired by hand: %s with %s\n", p.B, p.A)
		}
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
	if len(c.Corpus) > 0 {
		fmt.Fprintln(w, "\nCorpus metrics: B − A on sacrebleu's 0–100 scale over the docs both scored; p: paired approximate randomization over docs; not part of the gate.")
	}
	if len(c.Rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nΔ = B − A in pp over common problems (seeds and repeats averaged within a problem).\n%s\n"+
		"Gate: a drop on %q with Holm p < α = %g; %s.\n", TableNotes(), c.PrimaryFilter, c.Alpha, gateNote(c.Alternative))
	_, err := fmt.Fprintf(w, "%d significant drop(s).\n", len(c.Regressions))
	return err
}

// gateNote says what the gate's test is.
func gateNote(alt string) string {
	if alt == reports.Less {
		return "one-sided test for a drop (--alternative less), its interval an upper bound"
	}
	return "the test is " + alt + ", so a drop is declared at α/2 in its tail; --alternative less tests drops one-sided at α"
}

// TableNotes explains the columns of WriteComparisonTable.
func TableNotes() string {
	return "95% CI: the inversion of the sign-flip test whose p is shown (excludes 0 exactly when p < 0.05); normal: Δ ± 1.96 SE; boot: paired bootstrap.\n" +
		"p: sign-flip permutation test on per-problem differences (exact or mc); Holm p: within the family named (rows where no problem differs are left out).\n" +
		reports.SensitivityNote()
}

// WriteComparisonTable prints comparison rows as aligned text: the one
// terminal table of report, compare and run. mark flags rows (DROP).
func WriteComparisonTable(w io.Writer, rows []reports.ComparisonRow, mark func(reports.ComparisonRow) bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "sampler\tvs\tfilter\tn×k\tbase %\tsampler %\tΔ pp\t95% CI\tnormal CI\tboot CI\tp\tHolm p\tfamily\tMDE pp\t\t")
	for _, r := range rows {
		flag := ""
		if mark != nil && mark(r) {
			flag = "DROP"
		}
		filter, holm, family := r.Filter, "–", "–"
		if r.Primary {
			filter += " *"
		}
		if r.PHolm.Valid {
			holm, family = reports.FormatP(r.PHolm.V), fmt.Sprintf("%s (m=%d)", r.HolmFamily, r.HolmM)
		} else if !r.Primary {
			family = "secondary"
		}
		k := fmt.Sprint(r.SamplesPerProblem)
		if r.SamplerDeterministic {
			k = "det"
		}
		p := reports.FormatP(r.P) + " " + strings.TrimPrefix(r.PTest, "sign_flip_")
		if r.Alternative != reports.TwoSided {
			p += " " + r.Alternative
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d×%s\t%.1f\t%.1f\t%s\t[%s]\t[%s, %s]\t[%s]\t%s\t%s\t%s\t%.1f\t%s\t\n",
			r.Sampler, r.Baseline, filter, r.NProblems, k, 100*r.BaselineAcc, 100*r.SamplerAcc,
			reports.SignedPP(r.Delta), r.Interval(), reports.SignedPP(r.NormalCILow), reports.SignedPP(r.NormalCIHigh),
			r.BootInterval(), p, holm, family, 100*r.MDE80, flag)
	}
	return tw.Flush()
}
