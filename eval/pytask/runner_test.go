package pytask

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// prompts builds every prompt of a task as a run does: its data through
// LoadTaskData (process_docs of the few-shot split, then the evaluated
// one), shots and all.
func prompts(t *testing.T, task *datasets.Task, src datasets.DataSource) []string {
	t.Helper()
	data, err := datasets.LoadTaskData(task, src, task.NumFewshot)
	require.NoError(t, err)
	p, err := datasets.NewPrompter(task, data.Shots, datasets.PromptOptions{FewshotFromTestSplit: data.ShotsFromEvalSplit})
	require.NoError(t, err)
	var out []string
	for _, d := range data.Docs.Problems {
		pr, err := p.Build(d)
		require.NoError(t, err)
		out = append(out, pr.Text)
	}
	return out
}

// A run's prompts for mmlu_pro_math (5-shot from its processed validation
// split) are the same whether its process_docs, doc_to_text and few-shot
// hooks run as Go ports or in the user's Python through the bridge (an
// unported copy of the folder), and equal lm-eval's (hooks.json).
func TestRunPromptsThroughTheBridge(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t)
	src := datasets.DataSource{Files: map[string]string{
		"test":       filepath.Join(shared, "data/TIGER-Lab/MMLU-Pro/data/test-00000-of-00001.parquet"),
		"validation": filepath.Join(shared, "data/TIGER-Lab/MMLU-Pro/data/validation-00000-of-00001.parquet"),
	}}
	ported := pythonTask(t, filepath.Join(shared, "lm-eval"), "mmlu_pro_math")
	want := prompts(t, ported, src)

	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, shared)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ix, err := datasets.NewIndex(pythontest.UnportedCopy(t, filepath.Join(shared, "lm-eval", "mmlu_pro")))
	require.NoError(t, err)
	ix.PythonHooks, ix.Python = true, Runner{Ctx: context.Background(), Bridge: b}
	viaPython, err := ix.Task("mmlu_pro_math")
	require.NoError(t, err)
	require.NotEmpty(t, viaPython.PythonHooks)
	require.Empty(t, viaPython.Ports)
	got := prompts(t, viaPython, src)
	assert.Equal(t, want, got)

	var hj struct {
		Tasks []struct {
			Task string
			Docs []struct{ Prompt string }
		}
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &hj)
	var lmeval []string
	for _, tk := range hj.Tasks {
		if tk.Task == "mmlu_pro_math" {
			for _, d := range tk.Docs {
				lmeval = append(lmeval, d.Prompt)
			}
		}
	}
	assert.Equal(t, lmeval, got)
}

// A hook run and score cannot use yet is refused when the task is built for
// a run, named, not silently skipped.
func TestRunRefusesScoringHooks(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	ix, err := datasets.NewIndex(filepath.Join(shared, "lm-eval"))
	require.NoError(t, err)
	ix.PythonHooks, ix.Python = true, Runner{Ctx: context.Background()}
	_, err = ix.Task("ifeval")
	assert.ErrorContains(t, err, "task ifeval: the Python hook metric_list[1].aggregation (agg_inst_level_acc) is not wired into run and score yet")
	assert.ErrorIs(t, err, datasets.ErrUnsupportedTask)
}
