package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// singletons is one sample per problem.
func singletons(scores ...float64) ProblemSamples {
	var p ProblemSamples
	for i, x := range scores {
		p.Problems = append(p.Problems, int32(i))
		p.Scores = append(p.Scores, []float64{x})
	}
	return p
}

func TestClusteredAccuracyHandDerived(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		samples    ProblemSamples
		mean, se   float64
		neff       float64
		lo, hi     float64 // Wilson at neff
		exLo, exHi float64 // Clopper–Pearson, one 0/1 sample per problem only
	}{
		// 3 of 4: p = 0.75; SE = sqrt(0.75·0.25/3) = 0.25 (lm-eval's). Wilson and
		// Clopper–Pearson at n = 4 from scipy's binomtest(3, 4).proportion_ci.
		{"3 of 4", singletons(1, 1, 1, 0), 0.75, 0.25, 4, 0.30064184258240184, 0.9544127391902995, 0.19412044968324338, 0.9936905367902901},
		// 0 of 10: SE = 0, but the interval is not empty: Wilson's upper end is
		// z²/(n + z²) = 3.841459/13.841459 = 0.277533.
		{"0 of 10", singletons(make([]float64, 10)...), 0, 0, 10, 0, 0.27753279986288926, 0, 0.30849710781876294},
		// 1 of 2: SE = sqrt(0.25/1) = 0.5.
		{"1 of 2", singletons(1, 0), 0.5, 0.5, 2, 0.09453120573423074, 0.9054687942657693, 0.01257911709367899, 0.987420882906321},
		// One problem: no SE (lm-eval divides by n−1 = 0), yet Wilson at n = 1.
		{"single problem", singletons(1), 1, nan, 1, 0.20654931437723745, 1, 0.025, 1},
		// Repeats averaged per problem: means 1, 0.5, 0 → mean 0.5,
		// sample var = (0.25 + 0 + 0.25)/2 = 0.25, SE = sqrt(0.25/3) = 0.288675.
		// Plug-in var (÷3) = 1/6, so n_eff = 3·0.25/(1/6) = 4.5 (of 6 samples);
		// Wilson(0.5, 4.5): centre 0.5, half = z/(1 + z²/4.5)·sqrt(0.25/4.5 +
		// z²/81) = 0.339310 → [0.160690, 0.839310]. No exact interval.
		{"repeats averaged", ProblemSamples{Problems: []int32{0, 1, 2}, Scores: [][]float64{{1, 1}, {1, 0}, {0, 0}}}, 0.5, 0.288675, 4.5, 0.16068966318353894, 0.8393103368164611, nan, nan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ClusteredAccuracyOf(tt.samples)
			require.NoError(t, err)
			assert.Equal(t, len(tt.samples.Problems), a.N)
			assert.InDelta(t, tt.mean, a.Mean, 1e-12)
			assertClose(t, tt.se, a.SE, 1e-6, "SE")
			assert.InDelta(t, tt.neff, a.NEff, 1e-12)
			assertClose(t, tt.lo, a.CILow, 1e-9, "Wilson low")
			assertClose(t, tt.hi, a.CIHigh, 1e-9, "Wilson high")
			assertClose(t, tt.exLo, a.ExactLow, 1e-9, "Clopper–Pearson low")
			assertClose(t, tt.exHi, a.ExactHigh, 1e-9, "Clopper–Pearson high")
		})
	}
}

// TestOneIn80: issue 26's case. The CLT interval 0.0125 ± 1.96·0.0124 gives
// [0.0, 3.7]%; Wilson gives [0.221, 6.746]% and Clopper–Pearson [0.032,
// 6.769]% (scipy binomtest(1, 80).proportion_ci; by hand, Wilson's centre is
// (0.0125 + z²/160)/(1 + z²/80) = 0.034836 and its half-width
// z/(1 + z²/80)·sqrt(0.0125·0.9875/80 + z²/25600) = 0.032626).
func TestOneIn80(t *testing.T) {
	scores := make([]float64, 80)
	scores[17] = 1
	a, err := ClusteredAccuracyOf(singletons(scores...))
	require.NoError(t, err)
	assert.InDelta(t, 0.0022099755204522675, a.CILow, 1e-12)
	assert.InDelta(t, 0.06746270077668666, a.CIHigh, 1e-12)
	assert.InDelta(t, 0.00031642252742346223, a.ExactLow, 1e-12)
	assert.InDelta(t, 0.06768778446392222, a.ExactHigh, 1e-12)
	w := Wilson(0.0125, 80, 0.95)
	assert.InDelta(t, 0.034836-0.032626, w.Low, 2e-6)
	assert.InDelta(t, 0.034836+0.032626, w.High, 2e-6)
}

// TestClusteredWilsonStaysInside: several samples per problem near 0 and 1
// never leave [0, 1], and equal Wilson's interval over all samples when the
// problems are alike (n_eff capped at the number of samples).
func TestClusteredWilsonStaysInside(t *testing.T) {
	for _, all := range []float64{0, 1} {
		p := ProblemSamples{}
		for i := range 20 {
			p.Problems = append(p.Problems, int32(i))
			p.Scores = append(p.Scores, []float64{all, all, all})
		}
		p.Scores[3][1] = 1 - all
		a, err := ClusteredAccuracyOf(p)
		require.NoError(t, err)
		assert.True(t, a.CILow >= 0 && a.CIHigh <= 1 && a.CILow < a.Mean && a.Mean < a.CIHigh, "[%v, %v] around %v", a.CILow, a.CIHigh, a.Mean)
	}
	// Every problem at 1/2 over 4 samples: no between-problem variance, so the
	// 40 samples count as independent: Wilson(0.5, 40).
	p := ProblemSamples{}
	for i := range 10 {
		p.Problems = append(p.Problems, int32(i))
		p.Scores = append(p.Scores, []float64{1, 0, 1, 0})
	}
	a, err := ClusteredAccuracyOf(p)
	require.NoError(t, err)
	assert.Equal(t, 40.0, a.NEff)
	assert.Equal(t, Wilson(0.5, 40, 0.95), Interval{a.CILow, a.CIHigh})
}

func TestAccuracyMatchesLmEvalFormulaOnGSM8KSize(t *testing.T) {
	// 513 of 1319 (38.9%): SE = sqrt(p(1−p)/(n−1)) exactly as lm-eval computes it.
	scores := make([]float64, 1319)
	for i := range 513 {
		scores[i] = 1
	}
	a, err := ClusteredAccuracyOf(singletons(scores...))
	require.NoError(t, err)
	p := 513.0 / 1319
	assert.InDelta(t, math.Sqrt(p*(1-p)/1318), a.SE, 1e-15)
	assert.InDelta(t, 0.013428, a.SE, 1e-6) // sqrt(0.388931·0.611069/1318) = sqrt(1.80322e-4)
}

func TestMeanSDOf(t *testing.T) {
	tests := []struct {
		name     string
		values   []float64
		mean, sd float64
	}{
		// mean 0.32; SD = sqrt((0.02² + 0 + 0.02²)/2) = sqrt(0.0004) = 0.02.
		{"three seeds", []float64{0.30, 0.32, 0.34}, 0.32, 0.02},
		// mean 0.5; SD = sqrt((0.25+0.25)/1) = 0.707107.
		{"two seeds", []float64{0, 1}, 0.5, 0.707107},
		{"one seed", []float64{0.7}, 0.7, math.NaN()},
		// Large offset, tiny spread: the two-pass variance keeps it
		// (1e9 + {1, 2, 3}: mean 1e9+2, SD 1).
		{"offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 3}, 1e9 + 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := MeanSDOf(tt.values)
			require.NoError(t, err)
			assert.InDelta(t, tt.mean, m.Mean, 1e-9)
			assertClose(t, tt.sd, m.SD, 1e-6, "SD")
		})
	}
	_, err := MeanSDOf(nil)
	assert.Error(t, err)
	_, err = MeanSDOf([]float64{math.Inf(1)})
	assert.Error(t, err)
}

// assertClose is InDelta that also accepts NaN = NaN.
func assertClose(t *testing.T, want, got, delta float64, what string) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), "%s: want NaN, got %v", what, got)
		return
	}
	assert.InDelta(t, want, got, delta, what)
}
