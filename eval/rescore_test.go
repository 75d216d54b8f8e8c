package eval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
)

// oldRun makes a run directory as entropix-eval wrote it before results were
// generic: the manifest's task has a name but no filters or metrics.
func oldRun(t *testing.T, task string) string {
	t.Helper()
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	r.Task = TaskSpec{Name: task, Stops: r.Task.Stops, MaxNewTokens: r.Task.MaxNewTokens}
	_, err := r.Run(context.Background())
	require.NoError(t, err)
	return dir
}

type rowsArrow struct {
	jsonArrow
	rows *[]reports.ResultRow
}

func (a rowsArrow) WriteResults(path string, rows []reports.ResultRow) error {
	*a.rows = rows
	return a.jsonArrow.WriteResults(path, rows)
}

func TestRescoreUpgradesBuiltinTaskRuns(t *testing.T) {
	dir := oldRun(t, "gsm8k_cot")
	var rows []reports.ResultRow
	_, _, err := Rescore(dir, Outputs{Grader: NewLMEvalGrader(), Arrow: rowsArrow{rows: &rows}})
	require.NoError(t, err)
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	require.Len(t, m.Task.Filters, 2, "the built-in task's filters are recorded")
	assert.Equal(t, "strict-match", m.Task.Filters[0].Name)
	require.NotEmpty(t, rows)
	assert.Equal(t, "gsm8k_cot", rows[0].Task)
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
