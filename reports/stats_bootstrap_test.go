package reports

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPairedBootstrapConstantDifferenceHasZeroWidth(t *testing.T) {
	a := []float64{1, 1, 1, 0.5, 1}
	b := []float64{0.5, 0.5, 0.5, 0, 0.5}
	got, err := PairedBootstrap(a, b, BootstrapOptions{Resamples: 500, Seed: 7})
	require.NoError(t, err)
	assert.InDelta(t, 0.5, got.Difference, 1e-15)
	assert.InDelta(t, 0.5, got.CILow, 1e-15)
	assert.InDelta(t, 0.5, got.CIHigh, 1e-15)
	assert.InDelta(t, 0, got.SE, 1e-15)
}

// Three problems with differences d = (0, 0, 3): a resample's mean is K, the
// number of draws of problem 3 among 3, so K ~ Binomial(3, 1/3):
// P(0) = 8/27 = 0.296, P(1) = 12/27 = 0.444, P(2) = 6/27 = 0.222, P(3) = 1/27 = 0.037.
// Cumulative: 0.296, 0.741, 0.963, 1.
//   - 95% interval: the 2.5% point is 0 (0.025 < 0.296); the 97.5% point is 3
//     (0.963 < 0.975). With 10000 resamples the empirical CDF at 2 is
//     0.963 ± 0.0019, six standard errors from 0.975, so the interval is [0, 3].
//   - 90% interval: 5% → 0; 95% → 2 (0.741 < 0.95 ≤ 0.963) → [0, 2].
func TestPairedBootstrapMatchesEnumeratedDistribution(t *testing.T) {
	d := []float64{0, 0, 3}

	means := bootstrapMeans(d, 10000, 42)
	counts := map[float64]int{}
	for _, m := range means {
		counts[m]++
	}
	exact := map[float64]float64{0: 8.0 / 27, 1: 12.0 / 27, 2: 6.0 / 27, 3: 1.0 / 27}
	require.Len(t, counts, 4, "resample means take only the values 0..3")
	for v, p := range exact {
		se := math.Sqrt(p * (1 - p) / 10000)
		assert.InDelta(t, p, float64(counts[v])/10000, 5*se, "P(mean = %v)", v)
	}

	zeros := make([]float64, 3)
	got95, err := PairedBootstrap(d, zeros, BootstrapOptions{Seed: 42})
	require.NoError(t, err)
	assert.Equal(t, DefaultResamples, got95.Resamples)
	assert.InDelta(t, 1, got95.Difference, 1e-15)
	assert.Equal(t, [2]float64{0, 3}, [2]float64{got95.CILow, got95.CIHigh})

	got90, err := PairedBootstrap(d, zeros, BootstrapOptions{Seed: 42, Level: 0.90})
	require.NoError(t, err)
	assert.Equal(t, [2]float64{0, 2}, [2]float64{got90.CILow, got90.CIHigh})
}

func TestPairedBootstrapPairsIndices(t *testing.T) {
	// A and B are perfectly correlated: an unpaired bootstrap would give a wide
	// interval around 0, the paired one gives exactly 0.
	a := []float64{1, 0, 1, 0, 1, 1, 0, 0}
	got, err := PairedBootstrap(a, a, BootstrapOptions{Resamples: 200})
	require.NoError(t, err)
	assert.Equal(t, [2]float64{0, 0}, [2]float64{got.CILow, got.CIHigh})
}

func TestPairedBootstrapSwapNegatesAndSeedRepeats(t *testing.T) {
	a, b := syntheticPair(300, 11)
	opt := BootstrapOptions{Resamples: 2000, Seed: 3}
	ab, err := PairedBootstrap(a, b, opt)
	require.NoError(t, err)
	ba, err := PairedBootstrap(b, a, opt)
	require.NoError(t, err)
	assert.InDelta(t, -ab.Difference, ba.Difference, 1e-12)
	assert.InDelta(t, -ab.CIHigh, ba.CILow, 1e-12)
	assert.InDelta(t, -ab.CILow, ba.CIHigh, 1e-12)

	again, err := PairedBootstrap(a, b, opt)
	require.NoError(t, err)
	assert.Equal(t, ab, again, "a fixed seed gives the same interval")
}

func TestPairedBootstrapSEMatchesPlugInFormula(t *testing.T) {
	// The bootstrap SE of a mean converges to the plug-in SE
	// sqrt(Σ(d − d̄)²/n)/√n; with 10000 resamples it is within a few percent.
	a, b := syntheticPair(1319, 5)
	got, err := PairedBootstrap(a, b, BootstrapOptions{})
	require.NoError(t, err)
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	n := float64(len(d))
	plugIn := math.Sqrt(sampleVariance(d, meanOf(d))*(n-1)/n) / math.Sqrt(n)
	assert.InEpsilon(t, plugIn, got.SE, 0.03)
	assert.Less(t, got.CILow, got.Difference)
	assert.Greater(t, got.CIHigh, got.Difference)
}

func TestPairedBootstrapRejectsBadInput(t *testing.T) {
	_, err := PairedBootstrap([]float64{1}, []float64{1, 0}, BootstrapOptions{})
	assert.ErrorContains(t, err, "1 scores for A, 2 for B")
	_, err = PairedBootstrap(nil, nil, BootstrapOptions{})
	assert.Error(t, err)
	_, err = PairedBootstrap([]float64{math.NaN()}, []float64{0}, BootstrapOptions{})
	assert.Error(t, err)
	_, err = PairedBootstrap([]float64{1}, []float64{0}, BootstrapOptions{Level: 1.5})
	assert.Error(t, err)
	_, err = PairedBootstrap([]float64{1}, []float64{0}, BootstrapOptions{Resamples: -1})
	assert.Error(t, err)
}

func TestQuantileSortedIsType7(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	// h = 3q: q=0 → x[0]; q=0.5 → h=1.5 → 2.5; q=0.9 → h=2.7 → 3 + 0.7 = 3.7; q=1 → 4.
	for q, want := range map[float64]float64{0: 1, 0.5: 2.5, 0.9: 3.7, 1: 4} {
		assert.InDelta(t, want, quantileSorted(x, q), 1e-12, "q=%v", q)
	}
}

func TestSplitMix64IsTheReferenceGenerator(t *testing.T) {
	// First outputs of Vigna's splitmix64.c from state 0.
	s := splitMix64{}
	assert.Equal(t, uint64(0xe220a8397b1dcdaf), s.next())
	assert.Equal(t, uint64(0x6e789e6aa1b965f4), s.next())
	assert.Equal(t, uint64(0x06c45d188009454f), s.next())
}

func TestIntnIsUniform(t *testing.T) {
	s := splitMix64{state: 1}
	const n, draws = 7, 70000
	counts := make([]int, n)
	for range draws {
		counts[s.intn(n)]++
	}
	// Each count is Binomial(70000, 1/7): mean 10000, SD 92.6.
	for k, c := range counts {
		assert.InDelta(t, 10000, c, 5*92.6, "value %d", k)
	}
	assert.True(t, slices.Max(counts) < 11000)
}

// syntheticPair returns 0/1 scores of two correlated samplers on n problems.
func syntheticPair(n int, seed uint64) (a, b []float64) {
	rng := splitMix64{state: seed}
	a, b = make([]float64, n), make([]float64, n)
	for i := range a {
		easy := rng.intn(100) < 40
		if easy || rng.intn(100) < 10 {
			a[i] = 1
		}
		if easy || rng.intn(100) < 5 {
			b[i] = 1
		}
	}
	return a, b
}
