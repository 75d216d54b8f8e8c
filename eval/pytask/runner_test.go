package pytask

import (
	"context"
	"os"
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

// IFEval's hooks all bind for a run (its Python aggregations fold a Python
// process_results' values); a Python aggregation over values that no Python
// process_results gives is refused when the task is built for a run, named,
// not silently skipped.
func TestRunBindsAggregationsOverPythonResults(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	ix, err := datasets.NewIndex(filepath.Join(shared, "lm-eval"))
	require.NoError(t, err)
	ix.PythonHooks, ix.Python = true, Runner{Ctx: context.Background()}
	task, err := ix.Task("ifeval")
	require.NoError(t, err)
	var aggregated []string
	for _, m := range task.Metrics {
		if m.PythonAggregation != nil {
			aggregated = append(aggregated, m.Metric+"/"+m.PythonAggregation.Function)
		}
	}
	assert.Equal(t, []string{"inst_level_strict_acc/agg_inst_level_acc", "inst_level_loose_acc/agg_inst_level_acc"}, aggregated)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("task: t\ndataset_path: a/b\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\n"+
		"metric_list:\n  - metric: exact_match\n    aggregation: !function utils.agg\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte("def agg(items):\n    return 0.0\n"), 0o600))
	ix, err = datasets.NewIndex(dir)
	require.NoError(t, err)
	ix.PythonHooks, ix.Python = true, Runner{Ctx: context.Background()}
	_, err = ix.Task("t")
	assert.ErrorContains(t, err, "task t: the Python aggregation metric_list[0].aggregation (agg) runs in run and score over a Python process_results' values or a passthrough metric's (acc, f1, ...) only")
	assert.ErrorIs(t, err, datasets.ErrUnsupportedTask)
}
