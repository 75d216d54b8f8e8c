package runreport

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// TestBuildSweepMakesOneFamily: a sweep directory of two tasks, each with two
// samplers against greedy. Per task the family has 2 tests; built as a sweep,
// the 4 primary rows are one family and comparisons.arrow says so, and the
// Holm p of a row is at least its per-task one (m grew from 2 to 4).
func TestBuildSweepMakesOneFamily(t *testing.T) {
	dir := t.TempDir()
	for i, task := range []string{"arith", "words"} {
		require.NoError(t, fixture.Write(filepath.Join(dir, task), fixture.Spec{
			Task: "gsm8k_cot", Problems: 60, Samplers: []string{"greedy", "a", "b"}, Seeds: []int64{0}, Repeats: 1,
			MinTokens: 2, MaxTokens: 4, Skill: []float64{0, 0.2, -0.1}, NoTraces: true, Seed: uint64(5 + i),
		}))
	}
	opt := Options{Paired: reports.PairedOptions{Bootstrap: reports.BootstrapOptions{Resamples: 200}}}
	perTask, err := Compute(filepath.Join(dir, "arith"), opt)
	require.NoError(t, err)

	opt.HolmFamily = reports.HolmSweep
	reps, err := BuildSweep(dir, opt, nil)
	require.NoError(t, err)
	require.Len(t, reps, 2)
	family := "sweep:" + filepath.Base(dir)
	for _, task := range []string{"arith", "words"} {
		rows, err := reports.ReadComparisons(filepath.Join(dir, task, ComparisonsFile))
		require.NoError(t, err)
		members := 0
		for _, r := range rows {
			if r.Primary && r.NDiffering > 0 {
				assert.Equal(t, family, r.HolmFamily)
				assert.Equal(t, int32(4), r.HolmM)
				members++
			}
		}
		assert.Equal(t, 2, members, task)
	}
	for i, r := range perTask.Comparisons {
		if r.PHolm.Valid {
			assert.Equal(t, "task:gsm8k_cot", r.HolmFamily)
			assert.GreaterOrEqual(t, reps[0].Comparisons[i].PHolm.V, r.PHolm.V)
		}
	}

	_, err = BuildSweep(filepath.Join(dir, "arith"), opt, nil)
	assert.ErrorContains(t, err, "neither results.arrow nor run directories")
}

// TestRunFamilyTakesEveryFilter: --holm-family run puts the secondary
// filters' rows in the family too.
func TestRunFamilyTakesEveryFilter(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, fixture.Write(dir, fixture.Spec{
		Task: "gsm8k_cot", Problems: 60, Samplers: []string{"greedy", "a"}, Seeds: []int64{0}, Repeats: 1,
		MinTokens: 2, MaxTokens: 4, Skill: []float64{0, 0.2}, NoTraces: true, Seed: 5,
	}))
	rep, err := Compute(dir, Options{HolmFamily: reports.HolmRun, Paired: reports.PairedOptions{Bootstrap: reports.BootstrapOptions{Resamples: 200}}})
	require.NoError(t, err)
	secondaryInFamily := false
	for _, r := range rep.Comparisons {
		if r.NDiffering > 0 {
			assert.Equal(t, "run:"+filepath.Base(dir), r.HolmFamily)
			secondaryInFamily = secondaryInFamily || !r.Primary
		}
	}
	assert.True(t, secondaryInFamily)
}
