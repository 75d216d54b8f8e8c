package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ratio is a toy corpus metric: the first statistic's sum over the second's.
func ratio(sum []float64) float64 { return sum[0] / sum[1] }

func TestPairedARExactHandDerived(t *testing.T) {
	// Two docs; the system gets both right ([1, 1]), the baseline neither
	// ([0, 1]): Δ = 1 − 0. Of the four swap patterns, none and both give
	// |Δ*| = 1, one swap gives 0.5 − 0.5 = 0: p = 2/4.
	sys := [][]float64{{1, 1}, {1, 1}}
	base := [][]float64{{0, 1}, {0, 1}}
	got, err := PairedAR([][][]float64{sys}, [][][]float64{base}, ratio, DefaultARTrials, 1)
	require.NoError(t, err)
	assert.Equal(t, CorpusTest{Method: CorpusARExact, SystemScore: 1, BaselineScore: 0, Delta: 1, P: 0.5, Trials: 4, Docs: 2, Runs: 1}, got)

	// A system against itself: every pattern ties the observed 0: p = 1.
	got, err = PairedAR([][][]float64{sys}, [][][]float64{sys}, ratio, DefaultARTrials, 1)
	require.NoError(t, err)
	assert.Equal(t, 1.0, got.P)
	assert.Equal(t, 0.0, got.Delta)
}

// Over budget the patterns are drawn: p = (r + 1)/(trials + 1) is near the
// exact p of the same data (all 2^14 patterns), and a system against itself
// still gets 1.
func TestPairedARMonteCarloNearExact(t *testing.T) {
	sys, base := make([][]float64, 14), make([][]float64, 14)
	for i := range sys {
		sys[i] = []float64{float64(i % 3), 2}
		base[i] = []float64{float64((i + 1) % 2), 2}
	}
	exact, err := PairedAR([][][]float64{sys}, [][][]float64{base}, ratio, 1<<14, 0)
	require.NoError(t, err)
	require.Equal(t, CorpusARExact, exact.Method)
	mc, err := PairedAR([][][]float64{sys}, [][][]float64{base}, ratio, 4000, 7)
	require.NoError(t, err)
	require.Equal(t, CorpusARMC, mc.Method)
	assert.Equal(t, exact.Delta, mc.Delta)
	// Monte-Carlo SE of p at 4,000 draws is at most 0.008; 4 SE.
	assert.InDelta(t, exact.P, mc.P, 0.032)
	self, err := PairedAR([][][]float64{sys}, [][][]float64{sys}, ratio, 100, 3)
	require.NoError(t, err)
	assert.Equal(t, 1.0, self.P)
	assert.False(t, math.IsNaN(mc.P))
}

// Two seeds: a doc swaps in both at once, and the scores are the means
// over the seeds. Seed 0 as in the hand-derived case above (Δ 1); in seed
// 1 both systems get doc 0 right and doc 1 wrong (Δ 0). Observed Δ = 1/2.
// Swapping doc 0 alone: seed 0 gives 0.5 − 0.5, seed 1 still 0: |Δ*| = 0;
// doc 1 alone: likewise 0; both: seed 0 gives −1, seed 1 0: |Δ*| = 1/2.
// p = 2/4.
func TestPairedARSeedsSwapTogether(t *testing.T) {
	sys := [][][]float64{{{1, 1}, {1, 1}}, {{1, 1}, {0, 1}}}
	base := [][][]float64{{{0, 1}, {0, 1}}, {{1, 1}, {0, 1}}}
	got, err := PairedAR(sys, base, ratio, DefaultARTrials, 1)
	require.NoError(t, err)
	assert.Equal(t, CorpusTest{Method: CorpusARExact, SystemScore: 0.75, BaselineScore: 0.25, Delta: 0.5, P: 0.5, Trials: 4, Docs: 2, Runs: 2}, got)
}

func TestPairedARRefusesMismatchedInput(t *testing.T) {
	one := [][][]float64{{{1, 1}}}
	_, err := PairedAR(one, nil, ratio, 10, 0)
	assert.ErrorContains(t, err, "1 and 0 runs")
	_, err = PairedAR(one, [][][]float64{{{1, 1}, {1, 1}}}, ratio, 10, 0)
	assert.ErrorContains(t, err, "run 0 has 1 and 2 docs")
	_, err = PairedAR(one, [][][]float64{{{1}}}, ratio, 10, 0)
	assert.ErrorContains(t, err, "doc 0 has 2 and 1 statistics")
	_, err = PairedAR(one, one, ratio, 0, 0)
	assert.ErrorContains(t, err, "trials must be positive")
}
