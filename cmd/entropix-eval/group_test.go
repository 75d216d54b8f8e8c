package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestRunGroupWritesAggregates runs a two-task group with an
// aggregate_metric_list and checks group_results.json is the equal-weight
// mean of what the two tasks' results.json say (both ran on the same two docs).
func TestRunGroupWritesAggregates(t *testing.T) {
	dir := t.TempDir()
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	for _, name := range []string{"agg_a", "agg_b"} {
		y := fmt.Sprintf("task: %s\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
			"doc_to_text: \"Q: {{question}}\\nA:\"\ndoc_to_target: \"{{answer.split('####')[-1].strip()}}\"\n"+
			"generation_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 4\n", name, data)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(y), 0o644))
	}
	g := "group: agg_group\ntask: [agg_a, agg_b]\naggregate_metric_list:\n  - metric: exact_match\n    filter_list: none\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "group.yaml"), []byte(g), 0o644))
	out := t.TempDir()
	var stdout bytes.Buffer
	args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir, "--task", "agg_group",
		"--samplers", "greedy", "--limit", "2", "--progress", "none", "--out", out}
	require.NoError(t, runRun(context.Background(), args, &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), "group aggregates")
	assert.Contains(t, stdout.String(), "agg_group|greedy/seed=")

	var gr eval.GroupResults
	b, err := os.ReadFile(filepath.Join(out, eval.GroupResultsFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &gr))
	require.Len(t, gr.Order, 1)
	assert.Equal(t, []string{"agg_a", "agg_b"}, gr.Subtasks["agg_group"])
	grp := gr.Groups[gr.Order[0]]
	assert.EqualValues(t, 4, grp["sample_len"], "two docs in each task")
	var sum float64
	for _, task := range []string{"agg_a", "agg_b"} {
		var rj eval.ResultsJSON
		b, err := os.ReadFile(filepath.Join(out, task, eval.ResultsJSONFile))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &rj))
		sum += rj.Results[rj.Order[0]]["exact_match,none"].(float64)
	}
	assert.InDelta(t, sum/2, grp["exact_match,none"], 1e-12)
}
