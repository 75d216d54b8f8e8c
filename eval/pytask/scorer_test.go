package pytask

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/pyhooks"
	"github.com/entropix-eval/entropix-eval/textmetrics"
)

const mixedTask = `task: mixed
dataset_path: acme/x
test_split: test
doc_to_text: q
doc_to_target: ref
filter_list:
  - name: words
    filter:
      - function: !function utils.FirstWords
        n: 5
      - function: take_first
  - name: shout
    filter:
      - function: custom
        filter_fn: !function utils.shout
      - function: take_first
metric_list:
  - metric: bleu
  - metric: chrf
  - metric: ter
  - metric: exact_match
  - metric: !function utils.pred_len
  - metric: f1
    aggregation: !function utils.count_pairs
`

const mixedUtils = `
class FirstWords:
    def __init__(self, n=1):
        self.n = n

    def apply(self, resps, docs):
        return [[" ".join(r.split()[: self.n]) for r in rs] for rs in resps]


def shout(resps, docs):
    return [[r.upper() for r in rs] for rs in resps]


def pred_len(references, predictions):
    return len(predictions[0])


def count_pairs(items):
    return float(sum(1 for gold, pred in items if gold and pred))
`

// A task mixing a Python filter class and lm-eval's custom filter with Go
// steps, and native, passthrough and Python metrics: the values reach each
// metric as lm-eval hands them over. BLEU of the "words" pipeline is the
// hand-derived corpus value of package textmetrics' test, 100·(4/35)^(1/4).
func TestMixedPipelinesAndMetrics(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.yaml"), []byte(mixedTask), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte(mixedUtils), 0o600))
	ix, err := datasets.NewIndex(dir)
	require.NoError(t, err)
	ix.PythonHooks = true
	task, err := ix.Task("mixed")
	require.NoError(t, err)
	b := pyhooks.New(pyhooks.Options{Python: py})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := New(b, task)
	require.NoError(t, err)

	docs := []Doc{
		{ID: 0, Doc: datasets.Doc{"q": "?", "ref": "a b c d f"}, Columns: datasets.FieldsOf("q", "ref"), Target: "a b c d f"},
		{ID: 1, Doc: datasets.Doc{"q": "?", "ref": "z w"}, Columns: datasets.FieldsOf("q", "ref"), Target: "z w"},
	}
	ctx := context.Background()
	got, err := s.Score(ctx, docs, [][]string{{"a b c d e and more words"}, {"x y"}})
	require.NoError(t, err)
	assert.Equal(t, `"a b c d e"`, string(got[0].Filtered["words"]))
	assert.Equal(t, `"A B C D E AND MORE WORDS"`, string(got[0].Filtered["shout"]))
	m, err := pyjson.Dumps(got[0].Metrics["words"])
	require.NoError(t, err)
	assert.Equal(t, `{"bleu": ["a b c d f", "a b c d e"], "chrf": ["a b c d f", "a b c d e"], "ter": ["a b c d f", "a b c d e"], "exact_match": 0.0, "pred_len": 9, "f1": ["a b c d f", "a b c d e"]}`, string(m))

	aggs, err := s.Aggregate(ctx, got)
	require.NoError(t, err)
	byKey := map[string]float64{}
	for _, a := range aggs {
		byKey[a.Metric+","+a.Filter] = a.Value
	}
	assert.InDelta(t, 58.14307369682194, byKey["bleu,words"], 1e-10)
	chrf, err := textmetrics.LMEvalCHRF([]textmetrics.Item{{Refs: []string{"a b c d f"}, Pred: "a b c d e"}, {Refs: []string{"z w"}, Pred: "x y"}})
	require.NoError(t, err)
	assert.Equal(t, chrf, byKey["chrf,words"])
	// TER: one substitution in five reference words, two in two: 3/7.
	assert.InDelta(t, 100*3.0/7, byKey["ter,words"], 1e-12)
	assert.Equal(t, 0.0, byKey["exact_match,words"])
	assert.Equal(t, 6.0, byKey["pred_len,words"], "(9 + 3) / 2")
	assert.Equal(t, 2.0, byKey["f1,words"])
	assert.Equal(t, 0.0, byKey["bleu,shout"], "13a keeps case: nothing matches")
}

func TestUnsupportedMetricBesideHooks(t *testing.T) {
	task := &datasets.Task{Name: "x", Metrics: []datasets.MetricSpec{{Metric: "rouge1", Aggregation: "mean"}}}
	_, err := New(nil, task)
	assert.ErrorContains(t, err, "task x: metric rouge1 is not scored beside Python hooks")

	_, err = mean([]any{[]any{true}}, false)
	assert.ErrorContains(t, err, "a list-valued metric needs its own aggregation")
}

// A filter lm-eval registers by name (format_span) runs in a pipeline with a
// Go step after it, as lm-eval's own filter (called directly) gives it.
func TestRegistryFilterInPipeline(t *testing.T) {
	shared := sharedtest.Path(t, "tasks")
	py := pythontest.Python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ner.yaml"), []byte(`task: ner
dataset_path: acme/x
test_split: test
doc_to_text: q
doc_to_target: ref
filter_list:
  - name: spans
    filter:
      - function: format_span
      - function: take_first
`), 0o600))
	ix, err := datasets.NewIndex(dir)
	require.NoError(t, err)
	ix.PythonHooks = true
	task, err := ix.Task("ner")
	require.NoError(t, err)
	b := pyhooks.New(pyhooks.Options{Python: py, Env: pythontest.LMEvalEnv(t, shared)})
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := New(b, task)
	require.NoError(t, err)
	ctx := context.Background()
	resp := "Person: Ada Lovelace $$ Location: London, Paris"
	got, err := s.Score(ctx, []Doc{{ID: 3, Doc: datasets.Doc{"q": "?", "ref": "PER: ada lovelace"}, Columns: datasets.FieldsOf("q", "ref"), Target: "PER: ada lovelace"}},
		[][]string{{resp}})
	require.NoError(t, err)
	raw, err := json.Marshal([]string{resp})
	require.NoError(t, err)
	direct, err := b.RegistryFilter(ctx, pyhooks.Call{Task: "ner", Kind: "filter", Hook: pyhooks.Hook{Function: "format_span"}}, nil,
		[]pyhooks.FilterItem{{Resps: raw, Doc: json.RawMessage(`{}`)}})
	require.NoError(t, err)
	var first []json.RawMessage
	require.NoError(t, json.Unmarshal(direct[0], &first))
	assert.Equal(t, string(first[0]), string(got[0].Filtered["spans"]))
	assert.Equal(t, `"per: ada lovelace $ loc: london $ loc: paris"`, string(got[0].Filtered["spans"]), "as lm-eval's SPANFilter formats it")
}
