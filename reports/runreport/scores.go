package runreport

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/entropix-eval/entropix-eval/reports"
)

// runScores are a run's scores grouped by sampler and filter, then problem:
// the one input of every accuracy and comparison the report, compare and the
// terminal tables show.
type runScores struct {
	filters []string // the task's filters in its order; filters[0] is the default primary
	groups  map[reports.SamplerFilter]reports.ProblemSamples
}

// scoresOf is the glue from a run's result rows to the statistics: one
// Scored per response and filter. Rows without any score are an error,
// unless every score of the run is computed over the corpus (a task scored
// only by bleu, chrf, ter: results.json holds them).
func scoresOf(r *run) (*runScores, error) {
	rows := r.results
	s := &runScores{}
	keys := reports.ScoreKeys(rows) // the task's "metric,filter" scores, in its order
	for _, f := range keys {
		s.filters = append(s.filters, string(f))
	}
	if len(keys) == 0 && len(rows) > 0 && len(r.corpus.keys) == 0 {
		return nil, errors.New("the result rows carry no scores")
	}
	scored := make([]reports.Scored, 0, len(rows)*len(s.filters))
	for i := range rows {
		r := &rows[i]
		for _, f := range keys {
			v, ok := r.Score(f)
			if !ok {
				continue // a row of another task, or one its filters did not score
			}
			scored = append(scored, reports.Scored{Sampler: r.Sampler, Filter: string(f), Seed: r.Seed, Repeat: r.Repeat, Problem: r.ProblemID, Score: v})
		}
	}
	var err error
	if s.groups, err = reports.GroupScores(scored); err != nil {
		return nil, err
	}
	return s, nil
}

// primaryFilter checks a requested primary filter, or returns the task's first.
func (s *runScores) primaryFilter(want string) (string, error) {
	if len(s.filters) == 0 { // no result rows: nothing is compared
		return want, nil
	}
	if want == "" {
		return s.filters[0], nil
	}
	if !slices.Contains(s.filters, want) {
		return "", fmt.Errorf("primary filter %q is not a filter of this task (filters: %q)", want, s.filters)
	}
	return want, nil
}

var errNoCommonProblem = errors.New("no problem scored by both")

// compare returns sampler against baseline under every filter, unadjusted.
// baselineScores may come from another run (compare).
func (s *runScores) compare(sampler, baseline, primary string, opt reports.PairedOptions) ([]reports.ComparisonRow, error) {
	return compareAcross(s, sampler, s, baseline, primary, opt)
}

func compareAcross(a *runScores, sampler string, b *runScores, baseline, primary string, opt reports.PairedOptions) ([]reports.ComparisonRow, error) {
	var out []reports.ComparisonRow
	for _, f := range a.filters {
		sa := a.groups[reports.SamplerFilter{Sampler: sampler, Filter: f}]
		sb, ok := b.groups[reports.SamplerFilter{Sampler: baseline, Filter: f}]
		if !ok {
			continue
		}
		row, err := reports.ComparePaired(sa, sb, opt)
		if err != nil {
			if len(sa.Problems) > 0 && len(sb.Problems) > 0 && !sharesProblem(sa, sb) {
				return nil, errNoCommonProblem
			}
			return nil, fmt.Errorf("compare %q with %q under %s: %w", sampler, baseline, f, err)
		}
		row.Sampler, row.Baseline, row.Filter, row.Primary = sampler, baseline, f, f == primary
		out = append(out, row)
	}
	return out, nil
}

func sharesProblem(a, b reports.ProblemSamples) bool {
	for _, id := range a.Problems {
		if _, ok := slices.BinarySearch(b.Problems, id); ok {
			return true
		}
	}
	return false
}

// PairSamples are two samplers' scores under one filter of a run, grouped
// by problem: what the power command measures its variances from.
type PairSamples struct {
	Sampler, Baseline, Filter string
	A, B                      reports.ProblemSamples
}

// LoadPair reads a run directory's scores of sampler and baseline under
// filter. Empty names take the report's defaults: the baseline "greedy" (else
// the first sampler), the first other sampler, the primary filter.
func LoadPair(dir, sampler, baseline, filter string) (*PairSamples, error) {
	r, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	scores, err := scoresOf(r)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	groups := groupBySampler(r.results, r.samplerOrder())
	p := &PairSamples{Sampler: sampler}
	if p.Baseline, err = chooseBaseline(groups, baseline); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if p.Sampler == "" {
		for _, g := range groups {
			if g.label != p.Baseline {
				p.Sampler = g.label
				break
			}
		}
	}
	if p.Filter, err = scores.primaryFilter(cmp.Or(filter, r.manifest.Config.PrimaryFilter)); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	var ok bool
	if p.A, ok = scores.groups[reports.SamplerFilter{Sampler: p.Sampler, Filter: p.Filter}]; !ok {
		return nil, fmt.Errorf("run directory %s: no sampler %q under %s", dir, p.Sampler, p.Filter)
	}
	p.B = scores.groups[reports.SamplerFilter{Sampler: p.Baseline, Filter: p.Filter}]
	return p, nil
}
