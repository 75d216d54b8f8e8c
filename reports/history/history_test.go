package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

var nightStarts = []string{"2026-11-24T01:00:00Z", "2026-11-25T01:00:00Z", "2026-11-26T01:00:00Z"}

// writeNight writes a synthetic night (200 problems, greedy, min_p and
// Entropix, two seeds) started at start; minPSkill shifts min_p's chance of
// a right answer. Each night draws its answers afresh (seed).
func writeNight(t *testing.T, dir, start string, seed uint64, minPSkill float64) string {
	t.Helper()
	spec := fixture.Small()
	spec.Problems, spec.Seeds, spec.Seed, spec.NoTraces, spec.Started = 200, []int64{0, 1}, seed, true, start
	spec.Skill = []float64{0, minPSkill, 0}
	night := filepath.Join(dir, "night-"+start[:10])
	require.NoError(t, os.MkdirAll(night, 0o755))
	require.NoError(t, fixture.Write(night, spec))
	return night
}

// threeNights are two ordinary nights and a third where min_p's accuracy
// was planted 45 points lower.
func threeNights(t *testing.T) []string {
	dir := t.TempDir()
	return []string{
		writeNight(t, dir, nightStarts[0], 1, 0),
		writeNight(t, dir, nightStarts[1], 2, 0),
		writeNight(t, dir, nightStarts[2], 3, -0.45),
	}
}

// Over three nights with one planted regression, exactly that one is flagged:
// against the night before and against the best night, and by the gate.
func TestHistoryFlagsThePlantedRegression(t *testing.T) {
	nights := threeNights(t)
	out := t.TempDir()
	h, err := Update(out, nights, Options{})
	require.NoError(t, err)
	require.Len(t, h.Series, 3)
	var flagged []string
	for _, s := range h.Series {
		require.Len(t, s.Points, 3, s.Sampler)
		assert.Equal(t, "2026-11-26", s.Points[2].Date.Format("2006-01-02"))
		for what, c := range map[string]*Change{"previous": s.Previous, "best": s.Best} {
			require.NotNil(t, c, "%s vs %s", s.Sampler, what)
			if c.Significant {
				flagged = append(flagged, fmt.Sprintf("%s vs %s, Δ<0: %v", s.Sampler, what, c.Row.Delta < 0))
			}
		}
		assert.Equal(t, nightStarts[1], s.Previous.Against.Started.Format(time.RFC3339))
	}
	assert.ElementsMatch(t, []string{"min_p(min_p=0.1,temperature=1) vs previous, Δ<0: true", "min_p(min_p=0.1,temperature=1) vs best, Δ<0: true"}, flagged)
	err = h.Gate()
	require.Error(t, err)
	assert.True(t, IsRegression(err))
	assert.Contains(t, err.Error(), "min_p(min_p=0.1,temperature=1)")
	assert.NotContains(t, err.Error(), "greedy")
	assert.NotContains(t, err.Error(), "entropix")
	require.NoError(t, h.WriteHTML(out, 0.05, time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)))

	// Without the planted night the gate passes.
	h2, err := Update(t.TempDir(), nights[:2], Options{})
	require.NoError(t, err)
	require.NoError(t, h2.Gate())
}

// history.parquet is appended night by night, and indexing a night again
// changes nothing.
func TestHistoryAppendsIdempotently(t *testing.T) {
	nights := threeNights(t)
	out := t.TempDir()
	all, err := Update(out, nights, Options{})
	require.NoError(t, err)
	path := filepath.Join(out, ParquetFile)
	want, err := readParquet(path)
	require.NoError(t, err)
	assert.Equal(t, all.Rows, want, "the file holds the rows Update returned")
	// 3 nights × 3 samplers × 3 score keys (fixture: exact_match under two
	// filters, numeric_match under the first).
	assert.Len(t, want, 27)

	step := t.TempDir()
	_, err = Update(step, nights[:2], Options{})
	require.NoError(t, err)
	_, err = Update(step, nights[2:], Options{})
	require.NoError(t, err)
	_, err = Update(step, append(nights[1:], nights[2]), Options{}) // again, one twice: replaces, adds nothing
	require.NoError(t, err)
	got, err := readParquet(filepath.Join(step, ParquetFile))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A sampler whose parameters changed on the night it dropped keeps its
// label: compare pairs it by label, so the gate still sees the drop, and the
// page marks the changed spec.
func TestHistoryGateFollowsAChangedSampler(t *testing.T) {
	nights := threeNights(t)
	path := filepath.Join(nights[2], "manifest.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, s := range m["samplers"].([]any) {
		entry := s.(map[string]any)
		if entry["label"] == "min_p(min_p=0.1,temperature=1)" {
			entry["description"] = map[string]any{"name": "min_p", "min_p": 0.05, "temperature": 1}
		}
	}
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))

	h, err := Update(t.TempDir(), nights, Options{})
	require.NoError(t, err)
	err = h.Gate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "min_p(min_p=0.1,temperature=1)")
	require.Len(t, h.Notes, 2, "against the previous night and the best one")
	for i, against := range []string{"2026-11-25", "2026-11-24"} {
		assert.Regexp(t, `^fixture-llama gsm8k_cot 2026-11-26 against `+against+`: min_p\(min_p=0.1,temperature=1\): spec changed \(.*min_p added: 0.05.*\), paired by label$`, h.Notes[i])
	}
}
