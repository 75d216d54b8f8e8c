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
		name           string
		samples        ProblemSamples
		mean, se       float64
		normLo, normHi float64
	}{
		// 3 of 4: p = 0.75; SE = sqrt(0.75·0.25/3) = sqrt(0.0625) = 0.25.
		// Normal: 0.75 ± 1.959964·0.25 = [0.260009, 1.239991], clipped to [0.260009, 1].
		{"3 of 4", singletons(1, 1, 1, 0), 0.75, 0.25, 0.260009, 1},
		// 0 of 10: SE = 0, interval [0, 0].
		{"0 of 10", singletons(make([]float64, 10)...), 0, 0, 0, 0},
		// 1 of 2: SE = sqrt(0.25/1) = 0.5. Normal: 0.5 ± 0.979982 → [0, 1] after clipping.
		{"1 of 2", singletons(1, 0), 0.5, 0.5, 0, 1},
		// One problem: no SE (lm-eval divides by n−1 = 0).
		{"single problem", singletons(1), 1, nan, nan, nan},
		// Repeats averaged per problem: means 1, 0.5, 0 → mean 0.5,
		// sample var = (0.25 + 0 + 0.25)/2 = 0.25, SE = sqrt(0.25/3) = 0.288675.
		// Normal: 0.5 ± 0.565792 → [0, 1].
		{"repeats averaged", ProblemSamples{Problems: []int32{0, 1, 2}, Scores: [][]float64{{1, 1}, {1, 0}, {0, 0}}}, 0.5, 0.288675, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ClusteredAccuracyOf(tt.samples)
			require.NoError(t, err)
			assert.Equal(t, len(tt.samples.Problems), a.N)
			assert.InDelta(t, tt.mean, a.Mean, 1e-12)
			assertClose(t, tt.se, a.SE, 1e-6, "SE")
			assertClose(t, tt.normLo, a.CILow, 1e-6, "normal low")
			assertClose(t, tt.normHi, a.CIHigh, 1e-6, "normal high")
		})
	}
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
