package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

const (
	bbhBool = "bbh_cot_fewshot_boolean_expressions"
	bbhDate = "bbh_cot_fewshot_date_understanding"
)

// writeTaskResults writes a results.json by hand: per run id, n and the
// score entries.
func writeTaskResults(t *testing.T, out, task string, runs []string, n []int, scores []RunSummary) {
	t.Helper()
	rj := ResultsJSON{Results: map[string]RunSummary{}, NSamples: map[string]int{}}
	for i, run := range runs {
		key := task + "|" + run
		scores[i]["sampler"], scores[i]["seed"] = run[:len(run)-len("/seed=0")], 0
		rj.Results[key], rj.NSamples[key] = scores[i], n[i]
		rj.Order = append(rj.Order, key)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(out, task), 0o755))
	require.NoError(t, writeJSONAtomic(filepath.Join(out, task, ResultsJSONFile), rj))
}

// bbhResults: greedy scores 3/4 on boolean_expressions (se sqrt(.75·.25/3) =
// .25) and 1/2 on date_understanding (se sqrt(.25/1) = .5); entropix 2/4
// (se sqrt(.25/3)) and 1/1 (no se). boolean_expressions also reports a
// flexible-extract score of 4/4 (se 0).
func bbhResults(t *testing.T) string {
	out := t.TempDir()
	runs := []string{"greedy/seed=0", "entropix/seed=0"}
	writeTaskResults(t, out, bbhBool, runs, []int{4, 4}, []RunSummary{
		{"exact_match,get-answer": 0.75, "exact_match_stderr,get-answer": 0.25, "exact_match,flexible-extract": 1.0, "exact_match_stderr,flexible-extract": 0.0},
		{"exact_match,get-answer": 0.5, "exact_match_stderr,get-answer": 0.28867513459481287},
	})
	writeTaskResults(t, out, bbhDate, runs, []int{2, 1}, []RunSummary{
		{"exact_match,get-answer": 0.5, "exact_match_stderr,get-answer": 0.5},
		{"exact_match,get-answer": 1.0, "exact_match_stderr,get-answer": nil},
	})
	return out
}

func TestAggregateBBHGroupHandComputed(t *testing.T) {
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval/bbh"))
	require.NoError(t, err)
	out := bbhResults(t)
	res, err := AggregateGroup(ix, "bbh_cot_fewshot", out)
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.Equal(t, []string{"bbh_cot_fewshot|greedy/seed=0", "bbh_cot_fewshot|entropix/seed=0"}, res.Order)
	assert.Len(t, res.Subtasks["bbh_cot_fewshot"], 27, "the group lists 27 subtasks; 25 have no results here and are left out")

	g := res.Groups["bbh_cot_fewshot|greedy/seed=0"]
	// weight_by_size: (.75·4 + .5·2)/6 = 2/3. Pooled SE: sqrt((3·.25²·4 + 1·.5²·2)/(6-2)/6)
	// = sqrt(.3125/6), the SE of the six concatenated 0/1 scores with per-task means.
	assert.InDelta(t, 2.0/3, g["exact_match,get-answer"], 1e-12)
	assert.InDelta(t, 0.22821773229381923, g["exact_match_stderr,get-answer"], 1e-12)
	assert.NotContains(t, g, "exact_match,flexible-extract", "filter_list: get-answer only")
	assert.Equal(t, 6, g["sample_len"])
	assert.Equal(t, map[string]int{"exact_match,get-answer": 6}, g["sample_count"])
	assert.Equal(t, "greedy", g["sampler"])

	e := res.Groups["bbh_cot_fewshot|entropix/seed=0"]
	assert.InDelta(t, (0.5*4+1.0*1)/5, e["exact_match,get-answer"], 1e-12)
	assert.Nil(t, e["exact_match_stderr,get-answer"], "a task without SE (n=1) makes the group's N/A")
	assert.Equal(t, 5, e["sample_len"])
}

func TestAggregateUnweightedDiscoveredFilters(t *testing.T) {
	dir := t.TempDir()
	yaml := "group: my_bbh\ntask: [" + bbhBool + ", " + bbhDate + "]\naggregate_metric_list:\n  - metric: exact_match\n    weight_by_size: false\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.yaml"), []byte(yaml), 0o644))
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval/bbh"), dir)
	require.NoError(t, err)
	out := bbhResults(t)
	res, err := AggregateGroup(ix, "my_bbh", out)
	require.NoError(t, err)
	g := res.Groups["my_bbh|greedy/seed=0"]
	assert.Equal(t, []string{"exact_match,flexible-extract", "exact_match,get-answer"}, g["score_keys"], "filters discovered, sorted")
	assert.InDelta(t, (0.75+0.5)/2, g["exact_match,get-answer"], 1e-12, "each task weighs the same")
	assert.InDelta(t, 0.22821773229381923, g["exact_match_stderr,get-answer"], 1e-12, "lm-eval pools the SE by size either way")
	assert.InDelta(t, 1.0, g["exact_match,flexible-extract"], 1e-12, "only the task reporting it")
	assert.InDelta(t, 0.0, g["exact_match_stderr,flexible-extract"], 1e-12)
	assert.Equal(t, map[string]int{"exact_match,get-answer": 6, "exact_match,flexible-extract": 4}, g["sample_count"])

	res, err = WriteGroupResults(Config{Task: "my_bbh", IncludePaths: []string{sharedtest.Path(t, "tasks/lm-eval/bbh"), dir}}, out)
	require.NoError(t, err)
	var back GroupResults
	require.NoError(t, readJSON(filepath.Join(out, GroupResultsFile), &back))
	assert.Equal(t, res.Order, back.Order)
	assert.InDelta(t, 0.625, back.Groups["my_bbh|greedy/seed=0"]["exact_match,get-answer"], 1e-12)

	none, err := AggregateGroup(ix, bbhBool, out)
	require.NoError(t, err)
	assert.Nil(t, none, "a task is no group")
}

// TestAggregateNestedGroupLeaves: a group whose members are a subgroup and a
// task already in it aggregates over the leaf tasks depth first, each once
// (datasets.Index.Expand), and lists the subgroup's own aggregate too.
func TestAggregateNestedGroupLeaves(t *testing.T) {
	dir := t.TempDir()
	yaml := "group: inner\ntask: [" + bbhDate + ", " + bbhBool + "]\naggregate_metric_list:\n  - metric: exact_match\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inner.yaml"), []byte(yaml), 0o644))
	yaml = "group: outer\ntask: [inner, " + bbhBool + "]\naggregate_metric_list:\n  - metric: exact_match\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outer.yaml"), []byte(yaml), 0o644))
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval/bbh"), dir)
	require.NoError(t, err)
	res, err := AggregateGroup(ix, "outer", bbhResults(t))
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.Equal(t, []string{bbhDate, bbhBool}, res.Subtasks["outer"])
	assert.Equal(t, []string{bbhDate, bbhBool}, res.Subtasks["inner"])
	// weight_by_size (lm-eval's default): (.75·4 + .5·2)/6, the boolean task counted once.
	assert.InDelta(t, 2.0/3, res.Groups["outer|greedy/seed=0"]["exact_match,get-answer"], 1e-12)
	assert.Contains(t, res.Groups, "inner|greedy/seed=0")

	yaml = "group: cyclic\ntask: [" + bbhBool + ", cyclic]\naggregate_metric_list:\n  - metric: exact_match\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cyclic.yaml"), []byte(yaml), 0o644))
	ix, err = datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval/bbh"), dir)
	require.NoError(t, err)
	_, err = AggregateGroup(ix, "cyclic", t.TempDir())
	assert.ErrorContains(t, err, "group cycle", "as the run's own expansion refuses it")
}
