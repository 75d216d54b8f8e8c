package pyhooks_test

// The bridge against lm-eval's own hooks: the utils.py files in
// ../shared/tasks/lm-eval run through the bridge must give what lm-eval's
// code gave in ../shared/tasks/expected/hooks.json.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

type hooksJSON struct {
	Tasks []struct {
		Task string
		Yaml string
		Data map[string]string
		Docs []struct {
			DocIndex     int             `json:"doc_index"`
			ProcessedDoc json.RawMessage `json:"processed_doc"`
		}
		Responses []struct {
			DocIndex int                        `json:"doc_index"`
			Response json.RawMessage            `json:"response"`
			Filtered map[string]json.RawMessage `json:"filtered"`
			Metrics  map[string]json.RawMessage `json:"metrics"`
			NotRun   json.RawMessage            `json:"not_run"`
		}
	}
}

// sharedBridge is a bridge whose interpreter sees lm-eval's task files and
// core modules from ../shared as an lm-eval installation.
func sharedBridge(t *testing.T) (*pyhooks.Bridge, string, *hooksJSON) {
	t.Helper()
	root := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t, "nltk", "langdetect", "immutabledict", "packaging")
	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, root)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	var hj hooksJSON
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &hj)
	return b, root, &hj
}

func taskOf(t *testing.T, hj *hooksJSON, name string) int {
	for i, tk := range hj.Tasks {
		if tk.Task == name {
			return i
		}
	}
	t.Fatalf("hooks.json has no task %s", name)
	return -1
}

// processedDocs is every processed doc of a task, by doc index.
func processedDocs(hj *hooksJSON, ti int) map[int]json.RawMessage {
	out := map[int]json.RawMessage{}
	for _, d := range hj.Tasks[ti].Docs {
		out[d.DocIndex] = d.ProcessedDoc
	}
	return out
}

// TestSharedProcessResults runs process_results of ifeval, aime24, aime25
// and hendrycks_math on every invented response and compares the metric
// dicts (IFEval's list-valued instruction metrics included) with lm-eval's.
func TestSharedProcessResults(t *testing.T) {
	b, root, hj := sharedBridge(t)
	for _, c := range []struct{ task, folder string }{
		{"ifeval", "ifeval"}, {"aime24", "aime"}, {"aime25", "aime"}, {"hendrycks_math_algebra", "hendrycks_math"},
	} {
		t.Run(c.task, func(t *testing.T) {
			ti := taskOf(t, hj, c.task)
			docs := processedDocs(hj, ti)
			hook := pyhooks.Hook{File: filepath.Join(root, "lm-eval", c.folder, "utils.py"), Function: "process_results"}
			ran := 0
			for i, r := range hj.Tasks[ti].Responses {
				results, err := json.Marshal([]json.RawMessage{r.Filtered["none"]})
				require.NoError(t, err)
				out, err := b.ProcessResults(context.Background(), pyhooks.Call{Task: c.task, Kind: "process_results", Hook: hook, Docs: []int{r.DocIndex}},
					[]pyhooks.ResultsItem{{Doc: docs[r.DocIndex], Results: results}})
				if string(r.Metrics["none"]) == "null" {
					// lm-eval could not run it either (IFEval doc 7 needs NLTK's punkt data).
					require.NotEmpty(t, r.NotRun, "response %d", i)
					var he *pyhooks.HookError
					require.ErrorAs(t, err, &he, "response %d", i)
					assert.Equal(t, r.DocIndex, he.DocID)
					assert.Equal(t, "LookupError", he.Type)
					continue
				}
				require.NoError(t, err, "response %d", i)
				assert.JSONEq(t, string(r.Metrics["none"]), string(out[0]), "response %d (doc %d)", i, r.DocIndex)
				ran++
			}
			assert.Positive(t, ran)
		})
	}
}

func loadRows(t *testing.T, root, rel string) ([]string, [][]byte) {
	t.Helper()
	ds, err := datasets.LoadDocs(filepath.Join(root, rel))
	require.NoError(t, err)
	var cols []string
	for _, f := range ds.Problems[0].Columns {
		cols = append(cols, f.Name)
	}
	rows := make([][]byte, len(ds.Problems))
	for i, p := range ds.Problems {
		rows[i], err = datasets.EncodeDoc(p.Doc, p.Columns)
		require.NoError(t, err)
	}
	return cols, rows
}

// TestSharedProcessDocs runs process_docs of GPQA (its answer shuffle draws
// from the global random module, seeded 0 as lm-eval's evaluator seeds it;
// its first call is the one lm-eval's datasets cache keeps), hendrycks_math
// and mmlu_pro (a category filter) and compares the docs with lm-eval's.
func TestSharedProcessDocs(t *testing.T) {
	for _, c := range []struct{ task, folder, fn, split string }{
		{"gpqa_main_generative_n_shot", "gpqa/generative", "process_docs", "train"},
		{"hendrycks_math_algebra", "hendrycks_math", "process_docs", "test"},
		{"mmlu_pro_math", "mmlu_pro", "process_math", "test"},
	} {
		t.Run(c.task, func(t *testing.T) {
			b, root, hj := sharedBridge(t) // a fresh interpreter: random as lm-eval seeds it
			ti := taskOf(t, hj, c.task)
			cols, rows := loadRows(t, root, hj.Tasks[ti].Data[c.split])
			hook := pyhooks.Hook{File: filepath.Join(root, "lm-eval", c.folder, "utils.py"), Function: c.fn}
			out, outCols, err := b.ProcessDocs(context.Background(), pyhooks.Call{Task: c.task, Kind: "process_docs", Hook: hook}, cols, rows)
			require.NoError(t, err)
			want := processedDocs(hj, ti)
			require.Len(t, out, len(want))
			for i, row := range out {
				assert.JSONEq(t, string(want[i]), string(row), "doc %d", i)
				var keys []string
				d, err := datasets.DecodeDoc(row)
				require.NoError(t, err)
				for k := range d {
					keys = append(keys, k)
				}
				assert.ElementsMatch(t, outCols, keys)
			}
		})
	}
}

// TestSharedFilterClasses runs BBH's filter classes (lm-eval Filter
// subclasses, built with the YAML's arguments) as the first step of their
// pipelines and checks the values take_first passes on.
func TestSharedFilterClasses(t *testing.T) {
	b, root, hj := sharedBridge(t)
	for _, c := range []struct {
		task, class string
		args        map[string]any
	}{
		{"bbh_cot_zeroshot_word_sorting", "WordSortFilter", nil},
		{"bbh_cot_zeroshot_sports_understanding", "MapRegexFilter", map[string]any{"group_select": -1, "ignore_case": true,
			"regex_pattern_to_value": map[string]any{`\b(no|not plausible)\b`: "no", `\b(yes|plausible)\b`: "yes"}}},
	} {
		t.Run(c.task, func(t *testing.T) {
			ti := taskOf(t, hj, c.task)
			docs := processedDocs(hj, ti)
			var resps []json.RawMessage
			var items []pyhooks.FilterItem
			for _, r := range hj.Tasks[ti].Responses {
				raw, err := json.Marshal([]json.RawMessage{r.Response})
				require.NoError(t, err)
				items = append(items, pyhooks.FilterItem{Resps: raw, Doc: docs[r.DocIndex]})
				resps = append(resps, r.Filtered["flexible-extract"])
			}
			hook := pyhooks.Hook{File: filepath.Join(root, "lm-eval", "bbh", "cot_zeroshot", "utils.py"), Function: c.class}
			out, err := b.Filter(context.Background(), pyhooks.Call{Task: c.task, Kind: "filter", Hook: hook}, c.args, items)
			require.NoError(t, err)
			for i, o := range out {
				var first []json.RawMessage
				require.NoError(t, json.Unmarshal(o, &first))
				assert.JSONEq(t, string(resps[i]), string(first[0]), "response %d", i)
			}
		})
	}
}

// Filters lm-eval registers by name (lm_eval/filters) run from the
// interpreter's lm-eval: here lm-eval's own lowercase and regex filters.
func TestSharedRegistryFilters(t *testing.T) {
	b, _, _ := sharedBridge(t)
	items := []pyhooks.FilterItem{{Resps: json.RawMessage(`["The Answer is B.", "x"]`), Doc: json.RawMessage(`{}`)}}
	out, err := b.RegistryFilter(context.Background(), pyhooks.Call{Task: "t", Kind: "filter", Hook: pyhooks.Hook{Function: "lowercase"}}, nil, items)
	require.NoError(t, err)
	assert.Equal(t, `["the answer is b.", "x"]`, string(out[0]))
	out, err = b.RegistryFilter(context.Background(), pyhooks.Call{Task: "t", Kind: "filter", Hook: pyhooks.Hook{Function: "regex"}},
		map[string]any{"regex_pattern": `is (\w)`}, items)
	require.NoError(t, err)
	assert.Equal(t, `["B", "[invalid]"]`, string(out[0]))

	errs, err := b.Check(context.Background(), []pyhooks.Hook{{Function: "format_span", Want: "registry_filter"}, {Function: "nope", Want: "registry_filter"}})
	require.NoError(t, err)
	assert.NoError(t, errs[0])
	assert.ErrorContains(t, errs[1], "lm-eval has no filter named nope")
}
