package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAccuracyOf(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name           string
		scores         []float64
		mean, se       float64
		wilsonLo, wHi  float64
		normLo, normHi float64
	}{
		// 3 of 4: p = 0.75; SE = sqrt(0.75·0.25/3) = sqrt(0.0625) = 0.25.
		// Wilson, z = 1.959964, z²/n = 3.841459/4 = 0.960365:
		//   centre = (0.75 + 0.480182)/1.960365 = 0.627527
		//   half   = (1.959964/1.960365)·sqrt(0.1875/4 + 0.960365/16)
		//          = 0.999796·sqrt(0.046875 + 0.060023) = 0.999796·0.326952 = 0.326885
		//   → [0.300642, 0.954413] (published tables: 0.3006, 0.9544).
		// Normal: 0.75 ± 1.959964·0.25 = [0.260009, 1.239991], clipped to [0.260009, 1].
		{"3 of 4", []float64{1, 1, 1, 0}, 0.75, 0.25, 0.300642, 0.954413, 0.260009, 1},
		// 0 of 10: SE = 0; Wilson upper = (z²/n)/(1 + z²/n) = 0.384146/1.384146 = 0.277533.
		{"0 of 10", make([]float64, 10), 0, 0, 0, 0.277533, 0, 0},
		// 1 of 2: SE = sqrt(0.25/1) = 0.5. Wilson: z²/n = 1.920729, centre 0.5,
		//   half = (1.959964/2.920729)·sqrt(0.25/2 + 1.920729/8) = 0.671053·0.604228 = 0.405469
		//   → [0.094531, 0.905469]. Normal: 0.5 ± 0.979982 → [0, 1] after clipping.
		{"1 of 2", []float64{1, 0}, 0.5, 0.5, 0.094531, 0.905469, 0, 1},
		// One problem: no SE (lm-eval divides by n−1 = 0); Wilson for 1/1: lower
		// = 1/(1 + z²) = 1/4.841459 = 0.206549, upper 1.
		{"single problem", []float64{1}, 1, nan, 0.206549, 1, nan, nan},
		// Repeats averaged per problem: scores 1, 0.5, 0 → mean 0.5,
		// sample var = (0.25 + 0 + 0.25)/2 = 0.25, SE = sqrt(0.25/3) = 0.288675.
		// Wilson with n = 3 problems: z²/n = 1.280486, centre 0.5,
		// half = (1.959964/2.280486)·sqrt(0.25/3 + 1.280486/12) = 0.859450·0.435936 = 0.374666
		// → [0.125334, 0.874666]. Normal: 0.5 ± 0.565792 → [0, 1].
		{"repeats averaged", []float64{1, 0.5, 0}, 0.5, 0.288675, 0.125334, 0.874666, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := AccuracyOf(tt.scores)
			require.NoError(t, err)
			assert.Equal(t, len(tt.scores), a.N)
			assert.InDelta(t, tt.mean, a.Mean, 1e-12)
			assertClose(t, tt.se, a.SE, 1e-6, "SE")
			assertClose(t, tt.wilsonLo, a.Wilson[0], 1e-6, "Wilson low")
			assertClose(t, tt.wHi, a.Wilson[1], 1e-6, "Wilson high")
			assertClose(t, tt.normLo, a.Normal[0], 1e-6, "normal low")
			assertClose(t, tt.normHi, a.Normal[1], 1e-6, "normal high")
		})
	}
}

func TestAccuracyMatchesLmEvalFormulaOnGSM8KSize(t *testing.T) {
	// 513 of 1319 (38.9%): SE = sqrt(p(1−p)/(n−1)) exactly as lm-eval computes it.
	scores := make([]float64, 1319)
	for i := range 513 {
		scores[i] = 1
	}
	a, err := AccuracyOf(scores)
	require.NoError(t, err)
	p := 513.0 / 1319
	assert.InDelta(t, math.Sqrt(p*(1-p)/1318), a.SE, 1e-15)
	assert.InDelta(t, 0.013428, a.SE, 1e-6) // sqrt(0.388931·0.611069/1318) = sqrt(1.80322e-4)
}

func TestAccuracyRejectsBadScores(t *testing.T) {
	for _, scores := range [][]float64{nil, {0.5, math.NaN()}, {1.5}, {-0.1}} {
		_, err := AccuracyOf(scores)
		assert.Error(t, err, "%v", scores)
	}
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
