package runreport

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// A sweep run's samplers carry their family and temperature from the
// manifest, and their accuracy is the mean over problems of each problem's
// mean score (worked out here from results.arrow's rows).
func TestSweepRunOf(t *testing.T) {
	dir := t.TempDir()
	spec := fixture.Small()
	spec.Samplers = []string{"greedy", "min_p(min_p=0.1,temperature=0.7)", "entropix"}
	require.NoError(t, fixture.Write(dir, spec))
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["samplers"] = []any{
		map[string]any{"label": "greedy", "spec": map[string]any{"name": "greedy"}, "description": map[string]any{"name": "greedy", "temperature": 0, "greedy": true}},
		map[string]any{"label": "min_p(min_p=0.1,temperature=0.7)", "spec": map[string]any{"name": "min_p", "min_p": 0.1, "temperature": 0.7},
			"description": map[string]any{"name": "min_p", "temperature": 0.7, "min_p": 0.1, "greedy": false}},
		map[string]any{"label": "entropix", "spec": map[string]any{"name": "entropix", "variant": "frog"}, "description": "an entropix sampler"},
	}
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))

	run, err := SweepRunOf(dir, "fixture-llama")
	require.NoError(t, err)
	assert.Equal(t, "fixture-llama", run.Model)
	assert.Equal(t, spec.Task, run.Task)
	require.Len(t, run.Samplers, 3)
	assert.Equal(t, "greedy", run.Samplers[0].Family)
	assert.True(t, math.IsNaN(run.Samplers[0].Temperature), "greedy has no temperature to plot")
	assert.Equal(t, "min_p(min_p=0.1)", run.Samplers[1].Family)
	assert.Equal(t, 0.7, run.Samplers[1].Temperature)
	assert.Equal(t, "entropix(variant=frog)", run.Samplers[2].Family)
	assert.True(t, math.IsNaN(run.Samplers[2].Temperature))

	rows, err := reports.ReadResults(filepath.Join(dir, ResultsFile))
	require.NoError(t, err)
	key := reports.Filter(run.PrimaryFilter)
	for _, s := range run.Samplers {
		sum, n := map[int32]float64{}, map[int32]float64{}
		for i := range rows {
			if rows[i].Sampler == s.Label {
				if rows[i].Correct(key) {
					sum[rows[i].ProblemID]++
				}
				n[rows[i].ProblemID]++
			}
		}
		var mean float64
		for p := range n {
			mean += sum[p] / n[p] / float64(len(n))
		}
		assert.InDelta(t, mean, s.Accuracy.Mean, 1e-12, s.Label)
		assert.Equal(t, spec.Problems, s.Accuracy.N)
	}
}
