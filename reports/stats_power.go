package reports

import (
	"errors"
	"fmt"
	"math"
)

// VarianceComponents split the variance of one problem's paired difference
// d = mean(A's K_A samples) − mean(B's K_B samples) as Miller (2024, §5)
// does: Var(d) = Omega2 + WithinA/K_A + WithinB/K_B.
type VarianceComponents struct {
	// Omega2 is the between-problem variance of the difference of the two
	// samplers' per-problem rates: what more problems average away.
	Omega2 float64
	// WithinA, WithinB are the mean variance of one sample around its
	// problem's rate: what more samples per problem average away.
	WithinA, WithinB float64
	// Measured says the components come from a run, not from assumptions.
	Measured bool
	// Note says what could not be measured and what was assumed instead.
	Note string
}

// AssumedVariance builds the components from accuracies alone: pA and pB the
// two accuracies, withinShare the share of a sampler's score variance p(1−p)
// that is within-problem noise (0: a problem's outcome is fixed, so extra
// samples cannot help), corr the correlation of the two samplers' per-problem
// rates (0: no pairing benefit). Both defaults are the conservative ends.
func AssumedVariance(pA, pB, withinShare, corr float64) (VarianceComponents, error) {
	for _, v := range []float64{pA, pB, withinShare} {
		if !(v >= 0 && v <= 1) {
			return VarianceComponents{}, fmt.Errorf("accuracy or share %v, want [0, 1]", v)
		}
	}
	if !(corr >= -1 && corr <= 1) {
		return VarianceComponents{}, fmt.Errorf("correlation %v, want [−1, 1]", corr)
	}
	va, vb := (1-withinShare)*pA*(1-pA), (1-withinShare)*pB*(1-pB)
	return VarianceComponents{
		Omega2:  max(0, va+vb-2*corr*math.Sqrt(va*vb)),
		WithinA: withinShare * pA * (1 - pA), WithinB: withinShare * pB * (1 - pB),
	}, nil
}

// MeasureVariance estimates the components from a run's paired samples on
// the problems both have: the within variances are the mean unbiased
// variance of a problem's samples (from problems with two or more), and
// Omega2 = var(d) − mean(vA/kA) − mean(vB/kB), floored at 0 (the
// method-of-moments split of Miller 2024, §5). A side with one sample per
// problem has no measurable within variance; it is taken as 0, which makes
// extra samples look useless: the conservative reading.
func MeasureVariance(a, b ProblemSamples) (VarianceComponents, error) {
	ia, ib := alignProblems(a, b)
	if len(ia) < 2 {
		return VarianceComponents{}, errors.New("power: fewer than two problems scored by both samplers")
	}
	d := make([]float64, len(ia))
	var noiseA, noiseB []float64 // vA/kA per problem
	var withinA, withinB []float64
	for k := range ia {
		sa, sb := a.Scores[ia[k]], b.Scores[ib[k]]
		d[k] = meanOf(sa) - meanOf(sb)
		if len(sa) >= 2 {
			v := max(0, sampleVariance(sa, meanOf(sa)))
			withinA, noiseA = append(withinA, v), append(noiseA, v/float64(len(sa)))
		}
		if len(sb) >= 2 {
			v := max(0, sampleVariance(sb, meanOf(sb)))
			withinB, noiseB = append(withinB, v), append(noiseB, v/float64(len(sb)))
		}
	}
	vc := VarianceComponents{Measured: true}
	varD := max(0, sampleVariance(d, meanOf(d)))
	omega := varD
	if len(withinA) > 0 {
		vc.WithinA = meanOf(withinA)
		omega -= meanOf(noiseA)
	} else {
		vc.Note = "the sampler has one sample per problem: its within-problem variance is unmeasured, taken as 0. "
	}
	if len(withinB) > 0 {
		vc.WithinB = meanOf(withinB)
		omega -= meanOf(noiseB)
	} else {
		vc.Note += "the baseline has one sample per problem: its within-problem variance is unmeasured, taken as 0."
	}
	vc.Omega2 = max(0, omega)
	return vc, nil
}

// PowerPlan is a planned paired comparison.
type PowerPlan struct {
	Delta       float64 // the true difference to detect, as a fraction
	Alpha       float64 // family-wise level
	Power       float64 // e.g. 0.8
	Tests       int     // the Holm family's size m; planned at its first step, α/m
	Alternative string
	Variance    VarianceComponents
}

// Check rejects a plan that cannot be computed, naming the field.
func (p PowerPlan) Check() error {
	switch {
	case !(math.Abs(p.Delta) > 0 && math.Abs(p.Delta) <= 1):
		return fmt.Errorf("delta %v: want a non-zero fraction in [−1, 1]", p.Delta)
	case !(p.Alpha > 0 && p.Alpha < 1):
		return fmt.Errorf("alpha %v: want (0, 1)", p.Alpha)
	case !(p.Power > 0 && p.Power < 1):
		return fmt.Errorf("power %v: want (0, 1)", p.Power)
	case p.Tests < 1:
		return fmt.Errorf("tests %d: want at least 1", p.Tests)
	}
	return CheckAlternative(p.Alternative)
}

// zSum is z₁₋α′ + z_power with α′ = α/m, halved for a two-sided test: the
// normal approximation Miller's §5 plans with.
func (p PowerPlan) zSum() float64 {
	tail := p.Alpha / float64(p.Tests)
	if p.Alternative == TwoSided {
		tail /= 2
	}
	return normalQuantile(1-tail) + normalQuantile(p.Power)
}

// PerProblemVariance is Var(d) with kA and kB samples per problem.
func (p PowerPlan) PerProblemVariance(kA, kB int) float64 {
	return p.Variance.Omega2 + p.Variance.WithinA/float64(kA) + p.Variance.WithinB/float64(kB)
}

// ProblemsNeeded is the number of problems at kA, kB samples per problem:
// n = ((z₁₋α′ + z_power)/δ)²·Var(d), rounded up.
func (p PowerPlan) ProblemsNeeded(kA, kB int) int {
	z := p.zSum()
	return int(math.Ceil(z * z * p.PerProblemVariance(kA, kB) / (p.Delta * p.Delta)))
}

// SamplesNeeded is the fewest samples per problem (the same on both sides)
// with which n problems reach the plan's power, or 0 when none does: the
// between-problem variance alone is too large for n.
func (p PowerPlan) SamplesNeeded(n int) int {
	z := p.zSum()
	budget := float64(n) * p.Delta * p.Delta / (z * z) // the largest Var(d) n problems allow
	within := p.Variance.WithinA + p.Variance.WithinB
	if p.Variance.Omega2 >= budget {
		return 0
	}
	if within == 0 {
		return 1
	}
	return max(1, int(math.Ceil(within/(budget-p.Variance.Omega2))))
}
