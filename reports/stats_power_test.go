package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func problemsOf(scores ...[]float64) ProblemSamples {
	var p ProblemSamples
	for i, s := range scores {
		p.Problems = append(p.Problems, int32(i))
		p.Scores = append(p.Scores, s)
	}
	return p
}

// TestPowerPlanHandComputed: baseline 35%, a +2 pp difference, α = 0.05
// two-sided, 80% power: z₀.₉₇₅ + z₀.₈ = 1.959964 + 0.841621 = 2.801585.
func TestPowerPlanHandComputed(t *testing.T) {
	// Assumed with no pairing benefit and no within-problem noise: Var(d) =
	// 0.37·0.63 + 0.35·0.65 = 0.4606, n = (2.801585/0.02)²·0.4606 = 9037.99 → 9038,
	// and samples per problem change nothing.
	v, err := AssumedVariance(0.37, 0.35, 0, 0)
	require.NoError(t, err)
	plan := PowerPlan{Delta: 0.02, Alpha: 0.05, Power: 0.8, Tests: 1, Alternative: TwoSided, Variance: v}
	require.NoError(t, plan.Check())
	assert.InDelta(t, 0.4606, v.Omega2, 1e-12)
	assert.Equal(t, 9038, plan.ProblemsNeeded(1, 1))
	assert.Equal(t, 9038, plan.ProblemsNeeded(3, 3))

	// Half the variance within problems and rates correlated 0.6:
	// va = 0.5·0.2331 = 0.11655, vb = 0.5·0.2275 = 0.11375,
	// ω² = va + vb − 2·0.6·√(va·vb) = 0.092130; with 3 samples a side
	// Var(d) = 0.092130 + (0.11655 + 0.11375)/3 = 0.168897 → n = 3315; with 10,
	// 0.115160 → 2260.
	v, err = AssumedVariance(0.37, 0.35, 0.5, 0.6)
	require.NoError(t, err)
	plan.Variance = v
	assert.InDelta(t, 0.092130, v.Omega2, 1e-6)
	assert.Equal(t, 3315, plan.ProblemsNeeded(3, 3))
	assert.Equal(t, 2260, plan.ProblemsNeeded(10, 10))
	// GSM8K's 1319 problems allow Var(d) ≤ 1319·0.0004/2.801585² = 0.067220 <
	// ω²: no number of samples reaches 80% power.
	assert.Equal(t, 0, plan.SamplesNeeded(1319))
	// 3315 problems need 3 samples; 2260 need 10.
	assert.Equal(t, 3, plan.SamplesNeeded(3315))
	assert.Equal(t, 10, plan.SamplesNeeded(2260))

	// A family of 4 planned at Holm's first step: z₁₋₀.₀₀₆₂₅ + z₀.₈ =
	// 2.497705 + 0.841621 = 3.339327 (issue 26's 3.34·SE): n = 3.339327²·0.168897/0.0004 = 4709.
	plan.Tests = 4
	assert.Equal(t, 4709, plan.ProblemsNeeded(3, 3))

	plan.Delta = 0
	assert.ErrorContains(t, plan.Check(), "delta")
	_, err = AssumedVariance(1.2, 0.3, 0, 0)
	assert.Error(t, err)
}

// TestMeasureVarianceSplitsTheRun: four problems, three samples a side.
// A: {1,1,1} {0,0,0} {1,1,1} {1,1,0}; B: {0,0,0} {0,0,0} {1,1,1} {0,0,0}.
// d = 1, 0, 0, 2/3: mean 5/12, deviations 7/12, −5/12, −5/12, 3/12, squares
// (49 + 25 + 25 + 9)/144 = 0.75, var(d) = 0.25. A's within variances 0, 0, 0,
// 1/3 → mean 1/12; B's all 0. ω² = 0.25 − mean(vA/3) = 0.25 − (1/9)/4 =
// 0.25 − 1/36 = 0.222222.
func TestMeasureVarianceSplitsTheRun(t *testing.T) {
	a := problemsOf([]float64{1, 1, 1}, []float64{0, 0, 0}, []float64{1, 1, 1}, []float64{1, 1, 0})
	b := problemsOf([]float64{0, 0, 0}, []float64{0, 0, 0}, []float64{1, 1, 1}, []float64{0, 0, 0})
	v, err := MeasureVariance(a, b)
	require.NoError(t, err)
	assert.True(t, v.Measured)
	assert.Empty(t, v.Note)
	assert.InDelta(t, 1.0/12, v.WithinA, 1e-15)
	assert.InDelta(t, 0, v.WithinB, 1e-15)
	assert.InDelta(t, 0.25-1.0/36, v.Omega2, 1e-15)

	// One sample a side: nothing within to measure, said so.
	v, err = MeasureVariance(singletons(1, 0, 1), singletons(0, 0, 1))
	require.NoError(t, err)
	assert.Contains(t, v.Note, "unmeasured")
	_, err = MeasureVariance(singletons(1), singletons(0))
	assert.Error(t, err)
}
