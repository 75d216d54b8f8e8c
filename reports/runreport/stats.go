package runreport

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// samplerRows are one sampler's result rows, per seed and pooled.
type samplerRows struct {
	label   string
	seeds   []int64
	perSeed map[int64][]reports.ResultRow
	// pooled holds every seed's rows as repeats of one run (run_id = label), so
	// a problem's score averages over seeds and repeats, and McNemar pairs seed
	// i repeat r of one sampler with seed i repeat r of another.
	pooled []reports.ResultRow
}

// groupBySampler splits rows by sampler in the given order. Samplers without
// rows are left out.
func groupBySampler(rows []reports.ResultRow, order []string) []*samplerRows {
	seedSet := map[int64]bool{}
	stride := int32(1)
	by := map[string]*samplerRows{}
	for i := range rows {
		r := &rows[i]
		seedSet[r.Seed] = true
		stride = max(stride, r.Repeat+1)
		s := by[r.Sampler]
		if s == nil {
			s = &samplerRows{label: r.Sampler, perSeed: map[int64][]reports.ResultRow{}}
			by[r.Sampler] = s
		}
		s.perSeed[r.Seed] = append(s.perSeed[r.Seed], *r)
	}
	allSeeds := sortedKeys(seedSet)
	seedIndex := map[int64]int32{}
	for i, s := range allSeeds {
		seedIndex[s] = int32(i)
	}
	var out []*samplerRows
	for _, label := range order {
		s := by[label]
		if s == nil {
			continue
		}
		for seed, rs := range s.perSeed {
			s.seeds = append(s.seeds, seed)
			for _, r := range rs {
				r.RunID = label
				r.Repeat = seedIndex[seed]*stride + r.Repeat
				s.pooled = append(s.pooled, r)
			}
		}
		slices.Sort(s.seeds)
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// summaryRows are summary.arrow's rows: sampler × seed × filter.
func summaryRows(groups []*samplerRows) ([]reports.SummaryRow, error) {
	var out []reports.SummaryRow
	for _, g := range groups {
		for _, seed := range g.seeds {
			for _, f := range reports.ScoreKeys(g.pooled) {
				row, err := reports.Summarize(g.perSeed[seed], f)
				if err != nil {
					return nil, fmt.Errorf("sampler %q seed %d: %w", g.label, seed, err)
				}
				out = append(out, row)
			}
		}
	}
	return out, nil
}

// samplerSummary pools a sampler's seeds into the accuracy table's row: per
// filter the problem-level accuracy (each problem's seeds and repeats averaged
// first) and the spread of the per-seed accuracies.
func samplerSummary(g *samplerRows, scores *runScores, summary []reports.SummaryRow) (model.Sampler, error) {
	s := model.Sampler{Label: g.label, Seeds: g.seeds, Responses: len(g.pooled)}
	var tokens int64
	var truncated int
	for i := range g.pooled {
		tokens += int64(g.pooled[i].GenTokens)
		if g.pooled[i].FinishReason == reports.FinishLength {
			truncated++
		}
	}
	if n := len(g.pooled); n > 0 {
		s.TruncationRate, s.MeanGenTokens = float64(truncated)/float64(n), float64(tokens)/float64(n)
	}
	for _, f := range scores.filters {
		acc, err := reports.ClusteredAccuracyOf(scores.groups[reports.SamplerFilter{Sampler: g.label, Filter: f}])
		if err != nil {
			return s, fmt.Errorf("sampler %q filter %q: %w", g.label, f, err)
		}
		var perSeed []float64
		for _, r := range summary {
			if r.Sampler == g.label && string(r.Filter) == f {
				perSeed = append(perSeed, r.Accuracy)
			}
		}
		spread, err := reports.MeanSDOf(perSeed)
		if err != nil {
			return s, fmt.Errorf("sampler %q: seeds: %w", g.label, err)
		}
		s.Filters = append(s.Filters, model.FilterAccuracy{
			Filter: f, ClusteredAccuracy: acc, SeedMean: spread.Mean, SeedSD: spread.SD,
		})
	}
	return s, nil
}

// chooseBaseline returns the requested sampler, else "greedy" when the run has
// it, else the first sampler.
func chooseBaseline(groups []*samplerRows, want string) (string, error) {
	has := func(l string) bool {
		return slices.ContainsFunc(groups, func(g *samplerRows) bool { return g.label == l })
	}
	if want != "" {
		if !has(want) {
			labels := make([]string, len(groups))
			for i, g := range groups {
				labels[i] = g.label
			}
			return "", fmt.Errorf("baseline %q is not a sampler of this run (samplers: %q)", want, labels)
		}
		return want, nil
	}
	if has("greedy") || len(groups) == 0 {
		return "greedy", nil
	}
	return groups[0].label, nil
}

// comparisonRows compares every sampler with the baseline under every filter,
// unadjusted (holmWithinRun adjusts). A sampler that shares no problem with
// the baseline is left out with a note rather than failing the whole report.
func comparisonRows(scores *runScores, labels []string, baseline, primary string, opt reports.PairedOptions) ([]reports.ComparisonRow, []string, error) {
	var out []reports.ComparisonRow
	var notes []string
	for _, label := range labels {
		if label == baseline {
			continue
		}
		rows, err := scores.compare(label, baseline, primary, opt)
		if errors.Is(err, errNoCommonProblem) {
			notes = append(notes, fmt.Sprintf("%s answered none of the problems %s answered: not compared.", label, baseline))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rows...)
	}
	return out, notes, nil
}

// reportAlpha is the level a report's sensitivities are computed at: the
// complement of its intervals' 95%.
const reportAlpha = 0.05

// holmWithinRun adjusts one run's rows at alpha: the family is named after
// the task (scope task) or the run directory (scope run). Under scope sweep a
// run on its own is its task's family until the sweep joins the tasks.
func holmWithinRun(rows []reports.ComparisonRow, scope, task, dir string, alpha float64) error {
	switch scope {
	case "", reports.HolmTask, reports.HolmSweep:
		return reports.HolmRows(rows, reports.HolmTask, task, alpha)
	case reports.HolmRun:
		return reports.HolmRows(rows, reports.HolmRun, filepath.Base(filepath.Clean(dir)), alpha)
	}
	return reports.CheckHolmScope(scope)
}
