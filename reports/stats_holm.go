package reports

import (
	"fmt"
	"math"
	"slices"
)

// Holm applies Holm's step-down correction to the p-values of one family of
// tests (a report's comparisons) and returns the adjusted p-values in the input
// order. With the p-values sorted ascending, p₍ᵢ₎ (i = 1..m) becomes
// min(1, max over j ≤ i of (m−j+1)·p₍ⱼ₎): monotone in the order of the raw
// p-values and capped at 1. Rejecting where the adjusted p ≤ α controls the
// family-wise error rate at α.
func Holm(p []float64) ([]float64, error) {
	m := len(p)
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("holm: p-value %d is %v, want [0, 1]", i, v)
		}
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	// Stable, so tied p-values keep their input order (their adjusted values
	// are equal anyway).
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case p[i] < p[j]:
			return -1
		case p[i] > p[j]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 0.0
	for rank, idx := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*p[idx]))
		adj[idx] = running
	}
	return adj, nil
}

// Holm family scopes, as --holm-family names them.
const (
	// HolmRun: every row of a run directory, all filters.
	HolmRun = "run"
	// HolmTask: the samplers on a task's primary filter (the default).
	HolmTask = "task"
	// HolmSweep: tasks × samplers, each task's primary filter, over a sweep
	// directory's tasks (Dror et al. 2018: one family for a paper's claims).
	HolmSweep = "sweep"
)

// CheckHolmScope rejects a name that is none of the scopes.
func CheckHolmScope(scope string) error {
	switch scope {
	case HolmRun, HolmTask, HolmSweep:
		return nil
	}
	return fmt.Errorf("holm family %q: want %s, %s or %s", scope, HolmRun, HolmTask, HolmSweep)
}

// InHolmScope says whether a row joins its family under scope: every row
// under HolmRun, the primary filter's rows otherwise.
func InHolmScope(r *ComparisonRow, scope string) bool { return scope == HolmRun || r.Primary }

// mdePower is the power the sensitivity (MDE80) is computed for.
const mdePower = 0.80

// AssignHolm Holm-adjusts the p-values of rows within their families and sets
// every row's sensitivity. family names a row's family ("scope:name"), ""
// for a row in none. A row where no problem differs cannot be rejected by any
// test (its sign-flip p is 1 with certainty, whatever the data's signs), so
// it is left out of its family rather than counted in m (Tarone 1990: tests
// that cannot reach significance need not share the error rate). alpha is
// the family-wise level the sensitivity is computed at.
func AssignHolm(rows []*ComparisonRow, family func(*ComparisonRow) string, alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("holm: alpha %v, want (0, 1)", alpha)
	}
	members := map[string][]*ComparisonRow{}
	var names []string
	for _, r := range rows {
		r.PHolm, r.HolmFamily, r.HolmM = None[float64](), "", 0
		r.MDEAlpha = alpha
		name := family(r)
		if name == "" || r.NDiffering == 0 {
			continue
		}
		if members[name] == nil {
			names = append(names, name)
		}
		members[name] = append(members[name], r)
	}
	for _, name := range names {
		fam := members[name]
		p := make([]float64, len(fam))
		for i, r := range fam {
			p[i] = r.P
		}
		adj, err := Holm(p)
		if err != nil {
			return fmt.Errorf("family %s: %w", name, err)
		}
		for i, r := range fam {
			r.PHolm, r.HolmFamily, r.HolmM = Some(adj[i]), name, int32(len(fam))
			// The step this row's p stands at: α/(m − rank), rank 0 for the
			// smallest p; ties share the earlier (stricter) step.
			rank := 0
			for _, q := range p {
				if q < r.P {
					rank++
				}
			}
			r.MDEAlpha = alpha / float64(len(fam)-rank)
		}
	}
	for _, r := range rows {
		r.MDE80 = MDE(r.DeltaSE, int(r.NProblems), r.MDEAlpha, mdePower, r.Alternative)
	}
	return nil
}

// MDE is the smallest true difference a paired test on n problems with
// standard error se detects with the given power at level alpha:
// (t₁₋α/₂ + t_power)·se on n − 1 df (α not halved for a one-sided test). The
// sign-flip test's power approaches the t-test's as n grows (Lehmann &
// Romano 2005, §15.2); NaN for n < 2.
func MDE(se float64, n int, alpha, power float64, alternative string) float64 {
	if n < 2 || math.IsNaN(se) {
		return math.NaN()
	}
	tail := alpha / 2
	if alternative == Less || alternative == Greater {
		tail = alpha
	}
	df := float64(n - 1)
	return (tQuantile(1-tail, df) + tQuantile(power, df)) * se
}

// HolmRows Holm-adjusts one run's rows under scope (HolmRun or HolmTask),
// naming the family scope:name; HolmSweep families span runs, and are the
// caller's.
func HolmRows(rows []ComparisonRow, scope, name string, alpha float64) error {
	ptrs := make([]*ComparisonRow, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i]
	}
	return AssignHolm(ptrs, func(r *ComparisonRow) string {
		if !InHolmScope(r, scope) {
			return ""
		}
		return scope + ":" + name
	}, alpha)
}
