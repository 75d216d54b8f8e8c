package pytask

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// mmlu_pro_math's prompt side through the bridge: process_docs (the
// category filter) on the test split, then doc_to_text on what it kept;
// lm-eval's prompt for each doc (hooks.json) ends with that text.
func TestPromptSideHooks(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t)
	ix, err := datasets.NewIndex(filepath.Join(shared, "lm-eval"))
	require.NoError(t, err)
	ix.PythonHooks = true
	task, err := ix.Task("mmlu_pro_math")
	require.NoError(t, err)
	data, err := datasets.LoadDocs(filepath.Join(shared, "data/TIGER-Lab/MMLU-Pro/data/test-00000-of-00001.parquet"))
	require.NoError(t, err)
	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, shared)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ctx := context.Background()

	docs, err := ProcessDocs(ctx, b, task, "process_docs", data.Problems)
	require.NoError(t, err)
	var want struct {
		Tasks []struct {
			Task string
			Docs []struct {
				Prompt string
			}
		}
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &want)
	var prompts []string
	for _, tk := range want.Tasks {
		if tk.Task == "mmlu_pro_math" {
			for _, d := range tk.Docs {
				prompts = append(prompts, d.Prompt)
			}
		}
	}
	require.Len(t, docs, len(prompts))
	for i, d := range docs {
		assert.Equal(t, "math", d.Doc["category"])
		assert.Equal(t, i, d.Index)
		assert.Equal(t, -1, d.Row, "the filter dropped rows: provenance by row is unknown")
	}
	texts, err := DocTo(ctx, b, task, "doc_to_text", docs)
	require.NoError(t, err)
	for i, v := range texts {
		s, ok := v.(string)
		require.True(t, ok)
		assert.True(t, strings.HasSuffix(prompts[i], s), "doc %d: %q does not end lm-eval's prompt", i, s)
		assert.Contains(t, s, "Question:")
	}

	_, err = DocTo(ctx, b, task, "process_results", docs)
	assert.ErrorContains(t, err, "no Python hook at process_results")
}
