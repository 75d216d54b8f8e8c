package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolm(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// Sorted: 0.005 (×4 = 0.02), 0.01 (×3 = 0.03), 0.03 (×2 = 0.06), 0.04 (×1 = 0.04
		// → running max 0.06). Back in input order: 0.03, 0.06, 0.06, 0.02.
		{"step-down and monotone", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.5·2 = 1.0 (cap), then max(1.0, 0.6) = 1.
		{"capped at 1", []float64{0.5, 0.6}, []float64{1, 1}},
		// Ties: both get 2·0.02 = 0.04.
		{"ties", []float64{0.02, 0.02}, []float64{0.04, 0.04}},
		{"single test unchanged", []float64{0.037}, []float64{0.037}},
		{"empty", nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Holm(tt.p)
			require.NoError(t, err)
			assert.InDeltaSlice(t, tt.want, got, 1e-12)
		})
	}
	_, err := Holm([]float64{0.1, math.NaN()})
	assert.Error(t, err)
	_, err = Holm([]float64{1.2})
	assert.Error(t, err)
}

// holmRow is a testable primary row for Holm tests: SE 0.01 over 80 problems.
func holmRow(sampler, filter string, p float64) ComparisonRow {
	return ComparisonRow{Sampler: sampler, Filter: filter, Primary: filter == "strict", Alternative: TwoSided,
		P: p, NProblems: 80, NDiffering: 20, DeltaSE: 0.01, PHolm: Some(0.5)}
}

func TestHolmTaskFamilyIsThePrimaryFilter(t *testing.T) {
	// Three samplers on the primary filter with p = 0.01, 0.04, 0.03, and the
	// same samplers on a secondary filter. Holm over the three primary rows:
	// sorted 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.06, 0.04·1) = 0.06. Were the
	// six rows one family (scope run), the first would be 0.01·6 = 0.06.
	var rows []ComparisonRow
	for _, f := range []string{"strict", "flexible"} {
		for i, s := range []string{"a", "b", "c"} {
			rows = append(rows, holmRow(s, f, []float64{0.01, 0.04, 0.03}[i]))
		}
	}
	require.NoError(t, HolmRows(rows, HolmTask, "gsm8k", 0.05))
	assert.InDeltaSlice(t, []float64{0.03, 0.06, 0.06}, []float64{rows[0].PHolm.V, rows[1].PHolm.V, rows[2].PHolm.V}, 1e-15)
	for _, r := range rows[:3] {
		assert.Equal(t, "task:gsm8k", r.HolmFamily)
		assert.Equal(t, int32(3), r.HolmM)
	}
	for _, r := range rows[3:] {
		assert.False(t, r.PHolm.Valid, "secondary %s/%s has no Holm p", r.Sampler, r.Filter)
		assert.Empty(t, r.HolmFamily)
		assert.InDelta(t, 0.05, r.MDEAlpha, 0, "outside a family the sensitivity is at α")
	}

	require.NoError(t, HolmRows(rows, HolmRun, "runs/x", 0.05))
	assert.InDelta(t, 0.06, rows[0].PHolm.V, 1e-15)
	assert.Equal(t, int32(6), rows[5].HolmM)
	assert.Equal(t, "run:runs/x", rows[5].HolmFamily)
}

// TestHolmStepSetsTheSensitivity: four samplers, p = 0.001, 0.02, 0.03, 0.2.
// Holm's steps are α/4, α/3, α/2, α/1; the row with the smallest p stands at
// α/4 = 0.0125, where the two-sided test needs t₇₉(1 − 0.00625) = 2.556180
// and 80% power adds t₇₉(0.8) = 0.846195: MDE = 3.402375·SE (scipy
// stats.t.ppf; with normal quantiles 2.497705 + 0.841621 = 3.34·SE, issue 26's
// figure, against the 2.80·SE of one unadjusted z-test). The last row, at α:
// t₇₉(0.975) + t₇₉(0.8) = 1.990450 + 0.846195 = 2.836645.
func TestHolmStepSetsTheSensitivity(t *testing.T) {
	rows := []ComparisonRow{holmRow("a", "strict", 0.03), holmRow("b", "strict", 0.001), holmRow("c", "strict", 0.2), holmRow("d", "strict", 0.02)}
	require.NoError(t, HolmRows(rows, HolmTask, "t", 0.05))
	assert.InDelta(t, 0.05/4, rows[1].MDEAlpha, 1e-15)
	assert.InDelta(t, 0.05/3, rows[3].MDEAlpha, 1e-15)
	assert.InDelta(t, 0.05/2, rows[0].MDEAlpha, 1e-15)
	assert.InDelta(t, 0.05, rows[2].MDEAlpha, 1e-15)
	assert.InDelta(t, 3.402375*0.01, rows[1].MDE80, 1e-8)
	assert.InDelta(t, 2.836645*0.01, rows[2].MDE80, 1e-8)
	// Holm: 0.004, max(0.004, 0.06) = 0.06, max(0.06, 0.06) = 0.06, 0.2.
	assert.InDeltaSlice(t, []float64{0.06, 0.004, 0.2, 0.06}, []float64{rows[0].PHolm.V, rows[1].PHolm.V, rows[2].PHolm.V, rows[3].PHolm.V}, 1e-15)

	// One-sided: the whole α/4 in one tail, t₇₉(1 − 0.0125) = 2.284926 (scipy),
	// + 0.846195 = 3.131120.
	for i := range rows {
		rows[i].Alternative = Less
	}
	require.NoError(t, HolmRows(rows, HolmTask, "t", 0.05))
	assert.InDelta(t, 3.131120*0.01, rows[1].MDE80, 1e-8)
}

// TestHolmLeavesUntestableRowsOut: compare's greedy-against-greedy row has no
// differing problem, p = 1 with certainty; counted, it made m = 4 where 3
// tests can reject (issue 26: 4 × 0.238 = 0.95). Left out, the others are
// adjusted over 3: 0.238·3 = 0.714.
func TestHolmLeavesUntestableRowsOut(t *testing.T) {
	rows := []ComparisonRow{holmRow("a", "strict", 0.238), holmRow("b", "strict", 0.5), holmRow("c", "strict", 0.7), holmRow("greedy", "strict", 1)}
	rows[3].NDiffering, rows[3].DeltaSE = 0, 0
	require.NoError(t, HolmRows(rows, HolmTask, "t", 0.05))
	assert.InDelta(t, 0.714, rows[0].PHolm.V, 1e-12)
	assert.Equal(t, int32(3), rows[0].HolmM)
	assert.False(t, rows[3].PHolm.Valid)
	assert.Empty(t, rows[3].HolmFamily)
	assert.Equal(t, 0.0, rows[3].MDE80)
}

// TestHolmSweepFamilySpansTasks: two tasks with two samplers each form one
// family of 4 (Dror et al. 2018), where per task they were two families of 2.
// p = 0.01, 0.04 (task A) and 0.02, 0.3 (task B). Per task: 0.02, 0.04 and
// 0.04, 0.3. Across: sorted 0.01·4 = 0.04, 0.02·3 = 0.06, 0.04·2 = 0.08,
// 0.3·1 → 0.3.
func TestHolmSweepFamilySpansTasks(t *testing.T) {
	a := []ComparisonRow{holmRow("x", "strict", 0.01), holmRow("y", "strict", 0.04)}
	b := []ComparisonRow{holmRow("x", "strict", 0.02), holmRow("y", "strict", 0.3)}
	require.NoError(t, HolmRows(a, HolmTask, "A", 0.05))
	require.NoError(t, HolmRows(b, HolmTask, "B", 0.05))
	assert.InDeltaSlice(t, []float64{0.02, 0.04, 0.04, 0.3}, []float64{a[0].PHolm.V, a[1].PHolm.V, b[0].PHolm.V, b[1].PHolm.V}, 1e-15)

	all := []*ComparisonRow{&a[0], &a[1], &b[0], &b[1]}
	require.NoError(t, AssignHolm(all, func(r *ComparisonRow) string { return "sweep:nightly" }, 0.05))
	assert.InDeltaSlice(t, []float64{0.04, 0.08, 0.06, 0.3}, []float64{a[0].PHolm.V, a[1].PHolm.V, b[0].PHolm.V, b[1].PHolm.V}, 1e-15)
	for _, r := range all {
		assert.Equal(t, "sweep:nightly", r.HolmFamily)
		assert.Equal(t, int32(4), r.HolmM)
	}
}
