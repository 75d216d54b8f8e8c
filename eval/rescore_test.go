package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
)

// oldRun makes a run directory as entropix-eval wrote it before results were
// generic: the manifest's task has a name but no filters or metrics, and the
// manifest has no run_key.
func oldRun(t *testing.T, task string) string {
	t.Helper()
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	r.Task = TaskSpec{Name: task, Stops: r.Task.Stops, MaxNewTokens: r.Task.MaxNewTokens}
	_, err := r.Run(context.Background())
	require.NoError(t, err)
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	delete(m, "run_key")
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return dir
}

type rowsArrow struct {
	jsonArrow
	rows *[]reports.ResultRow
	prov *reports.Provenance
}

func (a rowsArrow) WriteResults(path string, rows []reports.ResultRow, p reports.Provenance) error {
	*a.rows = rows
	if a.prov != nil {
		*a.prov = p
	}
	return a.jsonArrow.WriteResults(path, rows, p)
}

func TestRescoreUpgradesBuiltinTaskRuns(t *testing.T) {
	dir := oldRun(t, "gsm8k_cot")
	var rows []reports.ResultRow
	var prov reports.Provenance
	_, _, err := Rescore(dir, Outputs{Grader: NewLMEvalGrader(), Arrow: rowsArrow{rows: &rows, prov: &prov}})
	require.NoError(t, err)
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	// The upgrade writes the run key into the manifest, every row and the
	// files' metadata: fingerprint@start.
	wantKey := m.Fingerprint + "@" + m.Started.UTC().Format(time.RFC3339Nano)
	assert.Equal(t, wantKey, m.RunKey)
	assert.Equal(t, wantKey, prov.RunKey)
	assert.Equal(t, m.Fingerprint, prov.SweepFingerprint)
	require.Len(t, m.Task.Filters, 2, "the built-in task's filters are recorded")
	assert.Equal(t, "strict-match", m.Task.Filters[0].Name)
	require.NotEmpty(t, rows)
	assert.Equal(t, "gsm8k_cot", rows[0].Task)
	assert.Equal(t, wantKey, rows[0].RunKey)
	assert.Equal(t, []reports.ScoreKey{"exact_match,strict-match", "numeric_match,strict-match",
		"exact_match,flexible-extract", "numeric_match,flexible-extract"}, reports.ScoreKeys(rows))
}

func TestRescoreRefusesOldRunsOfUnknownTasks(t *testing.T) {
	dir := oldRun(t, "my_private_task")
	_, _, err := Rescore(dir, Outputs{Grader: NewLMEvalGrader(), Arrow: jsonArrow{}})
	require.Error(t, err)
	assert.ErrorContains(t, err, `predates task-generic results and its task "my_private_task" is not built in`)
	assert.ErrorContains(t, err, "cannot be rescored")
}
