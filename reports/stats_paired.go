package reports

import (
	"cmp"
	"errors"
	"fmt"
	"math"
)

// PairedOptions configure ComparePaired. Zero values take the defaults.
type PairedOptions struct {
	// Bootstrap's Level is also the headline interval's coverage, and its
	// Seed the Monte-Carlo sign flips' stream.
	Bootstrap BootstrapOptions
	// Permutations is the number of Monte-Carlo sign flips when the exact test
	// is over budget (default DefaultPermutations).
	Permutations int
	// Alternative is the test's and the headline interval's (default TwoSided).
	Alternative string
}

// ComparePaired compares sampler a with baseline b on the problems both have
// and returns the statistics of a comparisons.arrow row (Sampler, Baseline,
// Filter and Primary are the caller's; PHolm and the MDE are set by
// AssignHolm, once the family is known).
//
// Each problem contributes d = mean(a's samples) − mean(b's samples) (Miller
// 2024: the problem is the unit). Δ is the mean of d and its SE sd(d)/√n. p is
// the sign-flip permutation test on d and the headline interval its inversion
// (SignFlip), so the two always agree; the normal interval Δ ± 1.96·SE and the
// paired bootstrap interval over problems are kept beside them. McNemar's
// counts and exact p are filled only when every common problem has exactly
// one 0/1 sample per side, where the exact McNemar test and the exact
// sign-flip test are the same test.
func ComparePaired(a, b ProblemSamples, opt PairedOptions) (ComparisonRow, error) {
	ia, ib := alignProblems(a, b)
	n := len(ia)
	if n == 0 {
		return ComparisonRow{}, errors.New("no problem scored by both")
	}
	d := make([]float64, n)
	xa, xb := make([]float64, n), make([]float64, n)
	single := true
	var kA, kB int
	for k := range ia {
		sa, sb := a.Scores[ia[k]], b.Scores[ib[k]]
		if len(sa) == 0 || len(sb) == 0 {
			return ComparisonRow{}, fmt.Errorf("problem %d has no samples", a.Problems[ia[k]])
		}
		xa[k], xb[k] = meanOf(sa), meanOf(sb)
		d[k] = xa[k] - xb[k]
		kA, kB = max(kA, len(sa)), max(kB, len(sb))
		single = single && len(sa) == 1 && len(sb) == 1 && isBinary(sa[0]) && isBinary(sb[0])
	}
	alt := cmp.Or(opt.Alternative, TwoSided)
	nan := math.NaN()
	row := ComparisonRow{
		Alternative: alt, NProblems: int32(n), SamplesPerProblem: int32(kA), BaselineSamplesPerProblem: int32(kB),
		SamplerDeterministic: a.Deterministic(), BaselineDeterministic: b.Deterministic(),
		SamplerAcc: meanOf(xa), BaselineAcc: meanOf(xb), Delta: meanOf(d),
		DeltaSE: nan, NormalCILow: nan, NormalCIHigh: nan, MDE80: nan, MDEAlpha: nan,
	}
	if n >= 2 {
		row.DeltaSE = math.Sqrt(max(0, sampleVariance(d, row.Delta)) / float64(n))
		row.NormalCILow, row.NormalCIHigh = row.Delta-z95*row.DeltaSE, row.Delta+z95*row.DeltaSE
	}
	boot, err := PairedBootstrap(xa, xb, opt.Bootstrap)
	if err != nil {
		return ComparisonRow{}, err
	}
	row.BootCILow, row.BootCIHigh = boot.CILow, boot.CIHigh
	row.BootResamples, row.BootBeyondZero = int32(boot.Resamples), int32(boot.BeyondZero)
	sf, err := SignFlip(d, SignFlipOptions{Alternative: alt, Level: opt.Bootstrap.Level, Permutations: opt.Permutations, Seed: opt.Bootstrap.Seed})
	if err != nil {
		return ComparisonRow{}, err
	}
	row.P, row.PTest, row.CILow, row.CIHigh, row.NDiffering = sf.P, sf.Method, sf.CILow, sf.CIHigh, int32(sf.Differing)
	if single {
		var nb, nc int
		for _, v := range d {
			switch {
			case v > 0:
				nb++
			case v < 0:
				nc++
			}
		}
		mc, err := McNemarCounts(nb, nc)
		if err != nil {
			return ComparisonRow{}, err
		}
		row.McNemarB, row.McNemarC, row.McNemarP, row.McNemarTest = Some(int32(nb)), Some(int32(nc)), Some(mc.P), mc.Method
	}
	return row, nil
}

func isBinary(x float64) bool { return x == 0 || x == 1 }
