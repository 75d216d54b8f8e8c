package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// hookTask is one task of ../shared/tasks/expected/hooks.json: what
// lm-eval's own Python returned for its processed docs, prompts, filters and
// process_results.
type hookTask struct {
	Task       string `json:"task"`
	NumFewshot int    `json:"num_fewshot"`
	Docs       []struct {
		DocIndex     int             `json:"doc_index"`
		SourceRow    int             `json:"source_row"`
		ProcessedDoc json.RawMessage `json:"processed_doc"`
		Prompt       string          `json:"prompt"`
		Target       any             `json:"target"`
		PoolIndices  []int           `json:"fewshot_pool_indices"`
	} `json:"docs"`
	Variants []struct {
		NumFewshot int `json:"num_fewshot"`
		Prompts    []struct {
			DocIndex    int    `json:"doc_index"`
			Prompt      string `json:"prompt"`
			PoolIndices []int  `json:"fewshot_pool_indices"`
		} `json:"prompts"`
	} `json:"prompt_variants"`
	Responses []struct {
		DocIndex int                       `json:"doc_index"`
		Response string                    `json:"response"`
		Note     string                    `json:"note"`
		Filtered map[string]*string        `json:"filtered"`
		Metrics  map[string]map[string]any `json:"metrics"`
		NotRun   []string                  `json:"not_run"`
	} `json:"responses"`
}

// hookTasksRefused are the hooks.json tasks whose hooks have no Go port, and
// what the refusal says.
var hookTasksRefused = map[string]string{
	"minerva_math500": "sympy's LaTeX parser",
	"ifeval":          "utils.process_results (ifeval/utils.py",
}

// TestHookTasksMatchLMEval loads every task of expected/hooks.json through
// the task YAML and the Go ports and compares, byte for byte, each processed
// doc, prompt (and few-shot variant), target, filter output and metric with
// what lm-eval's Python produced.
func TestHookTasksMatchLMEval(t *testing.T) {
	var file struct {
		Tasks []hookTask `json:"tasks"`
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &file)
	require.NotEmpty(t, file.Tasks)
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	src := datasets.DataSource{DataDirs: []string{sharedtest.Path(t, "tasks/data")}}
	g := NewLMEvalGrader()
	for _, want := range file.Tasks {
		t.Run(want.Task, func(t *testing.T) {
			task, err := ix.Task(want.Task)
			if why, refused := hookTasksRefused[want.Task]; refused {
				require.ErrorContains(t, err, why)
				return
			}
			require.NoError(t, err)
			data, err := datasets.LoadTaskData(task, src, want.NumFewshot)
			require.NoError(t, err)
			prompts := promptsFor(t, task, data, want.NumFewshot)
			refs, err := References(task, data.Docs.Problems)
			require.NoError(t, err)
			for _, d := range want.Docs {
				doc := data.Docs.Problems[d.DocIndex]
				assert.Equal(t, d.SourceRow, doc.Row, "doc %d: source row", d.DocIndex)
				got, err := datasets.EncodeDoc(doc.Doc, doc.Columns)
				require.NoError(t, err)
				assert.JSONEq(t, string(d.ProcessedDoc), string(got), "doc %d: processed doc", d.DocIndex)
				assert.Equal(t, d.Prompt, prompts[d.DocIndex].Text, "doc %d: prompt", d.DocIndex)
				if d.PoolIndices != nil {
					assert.Equal(t, d.PoolIndices, prompts[d.DocIndex].Shots, "doc %d: shots", d.DocIndex)
				}
				switch tg := d.Target.(type) {
				case string:
					assert.Equal(t, tg, refs[d.DocIndex].Target, "doc %d: target", d.DocIndex)
				case []any:
					var list []string
					for _, x := range tg {
						list = append(list, x.(string))
					}
					assert.Equal(t, list, refs[d.DocIndex].Targets, "doc %d: targets", d.DocIndex)
				default:
					assert.Equal(t, tg, refs[d.DocIndex].Target, "doc %d: target", d.DocIndex)
				}
			}
			for _, v := range want.Variants {
				data, err := datasets.LoadTaskData(task, src, v.NumFewshot)
				require.NoError(t, err)
				got := promptsFor(t, task, data, v.NumFewshot)
				for _, p := range v.Prompts {
					assert.Equal(t, p.Prompt, got[p.DocIndex].Text, "%d-shot doc %d: prompt", v.NumFewshot, p.DocIndex)
					assert.Equal(t, p.PoolIndices, got[p.DocIndex].Shots, "%d-shot doc %d: shots", v.NumFewshot, p.DocIndex)
				}
			}
			spec := TaskSpec{Name: task.Name, Filters: task.Filters, Metrics: task.Metrics, Repeats: task.Repeats, ProcessResults: task.ProcessResults}
			for i, r := range want.Responses {
				grades, err := g.Grade(spec, refs[r.DocIndex], []string{r.Response})
				require.NoError(t, err, "response %d (%s)", i, r.Note)
				for _, a := range grades[0].Answers {
					if w := r.Filtered[a.Filter]; w != nil {
						assert.Equal(t, *w, a.Answer, "response %d (%s): filter %s", i, r.Note, a.Filter)
					}
				}
				for _, s := range grades[0].Scores {
					if w, ok := r.Metrics[s.Filter][s.Metric].(float64); ok {
						assert.Equal(t, w, s.Value, "response %d (%s): %s,%s", i, r.Note, s.Metric, s.Filter)
					} else {
						assert.NotEmpty(t, r.NotRun, "response %d: %s,%s has no expected value", i, s.Metric, s.Filter)
					}
				}
			}
		})
	}
}

// promptsFor builds every doc's prompt as a run would.
func promptsFor(t *testing.T, task *datasets.Task, data *datasets.TaskData, shots int) []datasets.Prompt {
	t.Helper()
	p, err := datasets.NewPrompter(task, data.Shots, datasets.PromptOptions{NumFewshot: &shots, FewshotFromTestSplit: data.ShotsFromEvalSplit})
	require.NoError(t, err)
	out := make([]datasets.Prompt, len(data.Docs.Problems))
	for i, doc := range data.Docs.Problems {
		out[i], err = p.Build(doc)
		require.NoError(t, err, "doc %d", i)
	}
	return out
}

// TestGPQAWithoutDatasetsCache replays hooks.json's uncached scenario: with
// datasets caching off every process_docs call reshuffles from where
// Python's random stands, so the prompt (call 3) and each filter's gold
// letters (calls 4, 5) disagree. The harness runs the cached scenario (each
// split processed once); this holds the port to lm-eval's draws call by call.
func TestGPQAWithoutDatasetsCache(t *testing.T) {
	var file struct {
		Tasks []struct {
			Task string `json:"task"`
			RNG  struct {
				Uncached struct {
					Calls []struct {
						Answers []string `json:"answers"`
					} `json:"process_docs_calls"`
				} `json:"uncached"`
			} `json:"rng"`
		} `json:"tasks"`
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &file)
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	task, err := ix.Task("gpqa_main_generative_n_shot")
	require.NoError(t, err)
	ds, err := datasets.LoadDocs(sharedtest.Path(t, "tasks/data/Idavidrein/gpqa/gpqa_main/train/0000.parquet"))
	require.NoError(t, err)
	in := hooks.Rows{Columns: ds.Problems[0].Columns.Names()}
	for _, p := range ds.Problems {
		in.Docs = append(in.Docs, p.Doc)
	}
	env := hooks.DocsEnv{Random: datasets.NewPyRandom(datasets.LMEvalRandomSeed)}
	checked := 0
	for _, tk := range file.Tasks {
		if tk.Task != task.Name {
			continue
		}
		require.NotEmpty(t, tk.RNG.Uncached.Calls)
		for i, call := range tk.RNG.Uncached.Calls {
			out, err := task.ProcessDocs.Apply(in, env)
			require.NoError(t, err)
			var got []string
			for _, d := range out.Docs {
				got = append(got, d["answer"].(string))
			}
			assert.Equal(t, call.Answers, got, "call %d", i+1)
			checked++
		}
	}
	require.NotZero(t, checked)
}

// GPQA read from the CSV the hub's main branch holds gives the prompts and
// answers hooks.json has for the Parquet conversion of the same rows.
func TestGPQAFromHubCSV(t *testing.T) {
	var file struct {
		Tasks []hookTask `json:"tasks"`
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &file)
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	task, err := ix.Task("gpqa_main_generative_n_shot")
	require.NoError(t, err)
	src := datasets.DataSource{Files: map[string]string{"train": sharedtest.Path(t, "tasks/data/Idavidrein/gpqa/gpqa_main.csv")}}
	data, err := datasets.LoadTaskData(task, src, 0)
	require.NoError(t, err)
	prompts := promptsFor(t, task, data, 0)
	checked := 0
	for _, tk := range file.Tasks {
		if tk.Task != task.Name {
			continue
		}
		for _, d := range tk.Docs {
			assert.Equal(t, d.Prompt, prompts[d.DocIndex].Text, "doc %d", d.DocIndex)
			assert.Equal(t, d.Target, data.Docs.Problems[d.DocIndex].Doc["answer"], "doc %d", d.DocIndex)
			checked++
		}
	}
	require.NotZero(t, checked)
}
