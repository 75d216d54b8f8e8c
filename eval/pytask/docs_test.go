package pytask

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

func pythonTask(t *testing.T, root, name string) *datasets.Task {
	t.Helper()
	ix, err := datasets.NewIndex(root)
	require.NoError(t, err)
	ix.PythonHooks = true
	task, err := ix.Task(name)
	require.NoError(t, err)
	return task
}

// The bridge and the Go ports agree where both exist: mmlu_pro_math's
// process_docs (category filter) and doc_to_text, run once through the Go
// ports (the shared folder) and once through the bridge (an unported copy),
// on the dataset file; the prompts' last part is also lm-eval's (hooks.json).
func TestBridgeEqualsGoPorts(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t)
	ported := pythonTask(t, filepath.Join(shared, "lm-eval"), "mmlu_pro_math")
	require.NotNil(t, ported.ProcessDocs)
	require.Empty(t, ported.PythonHooks, "the shared folder's hooks have Go ports")
	viaPython := pythonTask(t, pythontest.UnportedCopy(t, filepath.Join(shared, "lm-eval", "mmlu_pro")), "mmlu_pro_math")
	require.Len(t, viaPython.PythonHooks, 4, "process_docs, doc_to_text and the two fewshot hooks")

	data, err := datasets.LoadDocs(filepath.Join(shared, "data/TIGER-Lab/MMLU-Pro/data/test-00000-of-00001.parquet"))
	require.NoError(t, err)
	in := hooks.Rows{Columns: data.Problems[0].Columns.Names()}
	for _, p := range data.Problems {
		in.Docs = append(in.Docs, p.Doc)
	}
	goDocs, err := ported.ProcessDocs.Apply(in, hooks.DocsEnv{})
	require.NoError(t, err)

	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, shared)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ctx := context.Background()
	pyDocs, err := ProcessDocs(ctx, b, viaPython, "process_docs", data.Problems)
	require.NoError(t, err)
	require.Len(t, pyDocs, len(goDocs.Docs))
	require.NotEmpty(t, pyDocs)
	assert.Equal(t, goDocs.Columns, pyDocs[0].Columns.Names())
	for i := range pyDocs {
		want, err := pyjson.Dumps(goDocs.Docs[i])
		require.NoError(t, err)
		got, err := datasets.EncodeDoc(pyDocs[i].Doc, pyDocs[i].Columns)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "doc %d", i)
	}

	texts, err := DocTo(ctx, b, viaPython, "doc_to_text", pyDocs)
	require.NoError(t, err)
	for i, d := range pyDocs {
		goText, err := ported.Text(d.Doc)
		require.NoError(t, err)
		assert.Equal(t, goText, texts[i], "doc %d", i)
	}

	_, err = DocTo(ctx, b, viaPython, "process_results", pyDocs)
	assert.ErrorContains(t, err, "no Python hook at process_results")
}

// hendrycks_math's process_results through its Go port and through the
// bridge (an unported copy) agree on hooks.json's responses and on 2,000
// generated ones built from the answer forms it tells apart.
func TestBridgeEqualsGoPortProcessResults(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t)
	ported := pythonTask(t, filepath.Join(shared, "lm-eval"), "hendrycks_math_algebra")
	require.NotNil(t, ported.ProcessResults)
	port, err := hooks.LookupPort(*ported.ProcessResults)
	require.NoError(t, err)
	viaPython := pythonTask(t, pythontest.UnportedCopy(t, filepath.Join(shared, "lm-eval", "hendrycks_math")), "hendrycks_math_algebra")
	h, ok := viaPython.Hook("process_results")
	require.True(t, ok)

	var hj struct {
		Tasks []struct {
			Task string
			Docs []struct {
				ProcessedDoc map[string]any `json:"processed_doc"`
			}
			Responses []struct {
				DocIndex int    `json:"doc_index"`
				Response string `json:"response"`
			}
		}
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &hj)
	var docs []map[string]any
	var pairs [][2]any // doc index, response
	for _, tk := range hj.Tasks {
		if tk.Task != "hendrycks_math_algebra" {
			continue
		}
		for _, d := range tk.Docs {
			docs = append(docs, d.ProcessedDoc)
		}
		for _, r := range tk.Responses {
			pairs = append(pairs, [2]any{r.DocIndex, r.Response})
		}
	}
	require.NotEmpty(t, docs)
	parts := []string{"$", "\\boxed{", "}", "x = ", "5", "6", "\\frac12", "0.5", "1/2", "\\dfrac{1}{2}", " ", "\\text{ units}", "^\\circ", "\\%", "\\sqrt{2}", "-", ","}
	rng := newRand(27)
	for i := 0; i < 2000; i++ {
		s := ""
		for range rng.IntN(8) {
			s += parts[rng.IntN(len(parts))]
		}
		pairs = append(pairs, [2]any{rng.IntN(len(docs)), s})
	}
	columns := []string{"problem", "level", "type", "solution", "answer"}
	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, shared)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	items := make([]pyhooks.ResultsItem, len(pairs))
	for i, p := range pairs {
		doc, err := pyjson.Dumps(docs[p[0].(int)])
		require.NoError(t, err)
		res, err := pyjson.Dumps([]any{p[1]})
		require.NoError(t, err)
		items[i] = pyhooks.ResultsItem{Doc: doc, Results: res}
	}
	out, err := b.ProcessResults(context.Background(), pyhooks.Call{Task: "hendrycks_math_algebra", Kind: "process_results",
		Hook: pyhooks.Hook{File: h.File, Function: h.Function}}, items)
	require.NoError(t, err)
	mismatches := 0
	for i, p := range pairs {
		goRes, err := port.Results(docs[p[0].(int)], columns, p[1].(string))
		require.NoError(t, err)
		v, err := pyjson.Decode(out[i])
		require.NoError(t, err)
		pyVal, _ := v.(*pyjson.Dict).Get("exact_match")
		f, err := number(pyVal)
		require.NoError(t, err)
		if len(goRes) != 1 || goRes[0].Metric != "exact_match" || goRes[0].Value != f {
			mismatches++
			t.Errorf("response %q: Go %v, Python %v", p[1], goRes, f)
		}
	}
	assert.Zero(t, mismatches)
}
