package reports

import (
	"errors"
	"fmt"
	"math"
)

// z80 is the standard normal 0.80 quantile: 80% power.
const z80 = 0.8416212335729143

// PairedOptions configure ComparePaired. Zero values take the defaults.
type PairedOptions struct {
	Bootstrap BootstrapOptions
	// Permutations is the number of Monte-Carlo sign flips when the exact test
	// is too costly (default DefaultPermutations); they use Bootstrap.Seed.
	Permutations int
}

// ComparePaired compares sampler a with baseline b on the problems both have
// and returns the statistics of a comparisons.arrow row (Sampler, Baseline,
// Filter and Primary are the caller's; PHolm is unset until HolmOverPrimary).
//
// Each problem contributes d = mean(a's samples) − mean(b's samples). Δ is the
// mean of d, its SE sd(d)/√n, the normal 95% interval Δ ± 1.96·SE (Miller eq. 7,
// paired), the bootstrap interval resamples problems, p is the sign-flip
// permutation test on d, and MDE80 = (z₀.₉₇₅ + z₀.₈₀)·SE is the smallest true
// difference this n and this variance of d detect with 80% power at α = 0.05
// (Miller §5). McNemar's counts and p are filled only when every common problem
// has exactly one 0/1 sample per side, where the exact McNemar test and the
// exact sign-flip test are the same test.
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
	row := ComparisonRow{
		NProblems: int32(n), SamplesPerProblem: int32(kA), BaselineSamplesPerProblem: int32(kB),
		SamplerAcc: meanOf(xa), BaselineAcc: meanOf(xb), Delta: meanOf(d),
		DeltaSE: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), MDE80: math.NaN(),
	}
	if n >= 2 {
		row.DeltaSE = math.Sqrt(max(0, sampleVariance(d, row.Delta)) / float64(n))
		row.CILow, row.CIHigh = row.Delta-z95*row.DeltaSE, row.Delta+z95*row.DeltaSE
		row.MDE80 = (z95 + z80) * row.DeltaSE
	}
	boot, err := PairedBootstrap(xa, xb, opt.Bootstrap)
	if err != nil {
		return ComparisonRow{}, err
	}
	row.BootCILow, row.BootCIHigh, row.BootResamples = boot.CILow, boot.CIHigh, int32(boot.Resamples)
	sf, err := SignFlip(d, opt.Permutations, opt.Bootstrap.Seed)
	if err != nil {
		return ComparisonRow{}, err
	}
	row.P, row.PTest = sf.P, sf.Method
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
		row.McNemarB, row.McNemarC, row.McNemarP = Some(int32(nb)), Some(int32(nc)), Some(mc.P)
	}
	return row, nil
}

func isBinary(x float64) bool { return x == 0 || x == 1 }

// HolmOverPrimary Holm-adjusts the p-values of the rows marked Primary, as one
// family (the samplers compared on the declared primary filter), and leaves
// PHolm absent on every other row: secondary filters are reported outside the
// family, so they neither spend nor borrow from its error rate.
func HolmOverPrimary(rows []ComparisonRow) error {
	var idx []int
	var p []float64
	for i := range rows {
		rows[i].PHolm = None[float64]()
		if rows[i].Primary {
			idx = append(idx, i)
			p = append(p, rows[i].P)
		}
	}
	adj, err := Holm(p)
	if err != nil {
		return err
	}
	for k, i := range idx {
		rows[i].PHolm = Some(adj[k])
	}
	return nil
}
