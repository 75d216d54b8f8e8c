package reports

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// The statistics below follow Miller, "Adding Error Bars to Evals" (2024,
// arXiv:2411.00640): the problem is the unit of sampling, a problem's samples
// (seeds × repeats) are averaged within the problem first, standard errors are
// CLT standard errors over those problem means, and two samplers are compared
// through the per-problem differences of their means.

// Scored is one response's score under one filter: the unit every statistic
// starts from. Filter is whatever name the task gives its filter.
type Scored struct {
	Sampler string
	Filter  string
	Seed    int64
	Repeat  int32
	Problem int32
	Score   float64 // in [0, 1]
}

// SamplerFilter names one sampler's scores under one filter.
type SamplerFilter struct{ Sampler, Filter string }

// ProblemSamples are one sampler's scores under one filter, grouped by
// problem: Scores[i] holds every sample (seed × repeat) of Problems[i].
// Problems are ascending.
type ProblemSamples struct {
	Problems []int32
	Scores   [][]float64
}

// GroupScores groups scores by sampler and filter, then by problem. The same
// (sampler, filter, seed, repeat, problem) twice is an error: a resumed run
// must not count a response twice.
func GroupScores(scores []Scored) (map[SamplerFilter]ProblemSamples, error) {
	type sampleKey struct {
		SamplerFilter
		seed            int64
		repeat, problem int32
	}
	seen := make(map[sampleKey]bool, len(scores))
	by := map[SamplerFilter]map[int32][]float64{}
	for _, s := range scores {
		if !(s.Score >= 0 && s.Score <= 1) {
			return nil, fmt.Errorf("sampler %q filter %q problem %d: score %v, want [0, 1]", s.Sampler, s.Filter, s.Problem, s.Score)
		}
		sf := SamplerFilter{s.Sampler, s.Filter}
		k := sampleKey{sf, s.Seed, s.Repeat, s.Problem}
		if seen[k] {
			return nil, fmt.Errorf("sampler %q filter %q: seed %d repeat %d of problem %d appears twice", s.Sampler, s.Filter, s.Seed, s.Repeat, s.Problem)
		}
		seen[k] = true
		m := by[sf]
		if m == nil {
			m = map[int32][]float64{}
			by[sf] = m
		}
		m[s.Problem] = append(m[s.Problem], s.Score)
	}
	out := make(map[SamplerFilter]ProblemSamples, len(by))
	for sf, m := range by {
		var ps ProblemSamples
		for _, id := range slices.Sorted(maps.Keys(m)) {
			ps.Problems = append(ps.Problems, id)
			ps.Scores = append(ps.Scores, m[id])
		}
		out[sf] = ps
	}
	return out, nil
}

// Means returns each problem's mean score.
func (p ProblemSamples) Means() []float64 {
	out := make([]float64, len(p.Scores))
	for i, s := range p.Scores {
		out[i] = meanOf(s)
	}
	return out
}

// SamplesPerProblem returns the fewest and the most samples of any problem.
func (p ProblemSamples) SamplesPerProblem() (lo, hi int) {
	for i, s := range p.Scores {
		if i == 0 || len(s) < lo {
			lo = len(s)
		}
		hi = max(hi, len(s))
	}
	return lo, hi
}

// ClusteredAccuracy is a sampler's accuracy with the problem as the unit.
type ClusteredAccuracy struct {
	N       int // problems
	Samples int // responses over all problems
	Mean    float64
	// SE is the CLT standard error over the problem means, sd/√n with the
	// (n−1) standard deviation: Miller's clustered SE with the problem as the
	// cluster. With one 0/1 sample per problem it is lm-eval's √(p(1−p)/(n−1)),
	// and it is reported as lm-eval reports it. NaN when N < 2.
	SE float64
	// CILow, CIHigh is the 95% Wilson interval at the effective sample size
	// NEff (EffectiveN): Wilson's own interval with one sample per problem,
	// and never outside [0, 1] (Wilson 1927; the effective-size adaptation is
	// Korn & Graubard's (1998), applied here to Wilson's interval).
	CILow, CIHigh float64
	NEff          float64
	// ExactLow, ExactHigh is the Clopper–Pearson interval, present (not NaN)
	// only with exactly one 0/1 sample per problem, where it is exact.
	ExactLow, ExactHigh float64
	// WithinSD is the within-problem spread: the root of the mean, over
	// problems with two or more samples, of the (k−1) variance of a problem's
	// samples. It is the resampling noise that averaging k samples divides by k
	// (Miller §3); 0 for a deterministic sampler, NaN with one sample per problem.
	WithinSD float64
}

// accuracyLevel is the coverage of the accuracy intervals.
const accuracyLevel = 0.95

// ClusteredAccuracyOf computes the accuracy of per-problem samples.
func ClusteredAccuracyOf(p ProblemSamples) (ClusteredAccuracy, error) {
	if len(p.Scores) == 0 {
		return ClusteredAccuracy{}, errors.New("accuracy of no problems")
	}
	means := p.Means()
	nan := math.NaN()
	a := ClusteredAccuracy{N: len(means), Mean: meanOf(means), SE: nan, WithinSD: nan, ExactLow: nan, ExactHigh: nan}
	if a.N >= 2 {
		a.SE = math.Sqrt(max(0, sampleVariance(means, a.Mean)) / float64(a.N))
	}
	var within []float64
	binarySingles, correct := true, 0
	for i, s := range p.Scores {
		if len(s) == 0 {
			return ClusteredAccuracy{}, fmt.Errorf("problem %d has no samples", p.Problems[i])
		}
		a.Samples += len(s)
		if len(s) >= 2 {
			within = append(within, max(0, sampleVariance(s, meanOf(s))))
		}
		binarySingles = binarySingles && len(s) == 1 && isBinary(s[0])
		if len(s) == 1 && s[0] == 1 {
			correct++
		}
	}
	if len(within) > 0 {
		a.WithinSD = math.Sqrt(meanOf(within))
	}
	a.NEff = EffectiveN(means, a.Mean, a.Samples)
	iv := Wilson(a.Mean, a.NEff, accuracyLevel)
	a.CILow, a.CIHigh = iv.Low, iv.High
	if binarySingles {
		cp := ClopperPearson(correct, a.N, accuracyLevel)
		a.ExactLow, a.ExactHigh = cp.Low, cp.High
	}
	return a, nil
}

// Deterministic says whether every problem's samples are identical and some
// problem has more than one: a sampler (greedy) whose repeats are copies, so
// its samples per problem count as one.
func (p ProblemSamples) Deterministic() bool {
	several := false
	for _, s := range p.Scores {
		for _, x := range s[min(1, len(s)):] {
			if x != s[0] {
				return false
			}
		}
		several = several || len(s) > 1
	}
	return several
}

// alignProblems returns the indices into a and b of the problems both have,
// in ascending problem order.
func alignProblems(a, b ProblemSamples) (ia, ib []int) {
	for i, j := 0, 0; i < len(a.Problems) && j < len(b.Problems); {
		switch cmp.Compare(a.Problems[i], b.Problems[j]) {
		case -1:
			i++
		case 1:
			j++
		default:
			ia, ib = append(ia, i), append(ib, j)
			i++
			j++
		}
	}
	return ia, ib
}
