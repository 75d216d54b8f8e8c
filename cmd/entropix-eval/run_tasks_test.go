package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
)

// TestRunGroupFromIncludePath runs a group of two user task files (one with a
// multi_choice-free custom filter, data from dataset_kwargs.data_files)
// through the real pipeline: each member gets its own run directory, scored
// with its own filters.
func TestRunGroupFromIncludePath(t *testing.T) {
	dir := t.TempDir()
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	task := func(name, filter string) string {
		return fmt.Sprintf("task: %s\ntag: my_suite\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
			"doc_to_text: \"Q: {{question}}\\nA:\"\ndoc_to_target: \"{{answer.split('####')[-1].strip()}}\"\n"+
			"generation_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 8\n"+
			"filter_list:\n  - name: %s\n    filter:\n      - function: regex\n        regex_pattern: \"(\\\\d+)\"\n        group_select: -1\n      - function: take_first\n", name, data, filter)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(task("suite_a", "last-number")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(task("suite_b", "other")), 0o644))
	out := t.TempDir()
	args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir, "--task", "my_suite",
		"--samplers", "greedy", "--limit", "2", "--progress", "none", "--out", out}
	require.NoError(t, runQuiet(t, context.Background(), args))
	for name, filter := range map[string]string{"suite_a": "last-number", "suite_b": "other"} {
		rows, err := reports.ReadResults(filepath.Join(out, name, eval.ResultsArrow))
		require.NoError(t, err, name)
		require.Len(t, rows, 2)
		assert.Equal(t, name, rows[0].Task)
		assert.Equal(t, []reports.ScoreKey{reports.KeyOf("exact_match", filter)}, reports.ScoreKeys(rows))
		m, err := eval.ReadManifest(filepath.Join(out, name))
		require.NoError(t, err)
		assert.Equal(t, 8, m.Task.MaxNewTokens)
		assert.Equal(t, []string{"Q:", "</s>"}, m.Task.Stops[:2], "the task's until, then the tokenizer's EOS")
	}
}

// TestRunPortedHookTasks runs tasks whose lm-eval YAML names Python hooks
// through the real pipeline: hendrycks_math_algebra (ported process_docs and
// process_results) and gpqa_main_cot_zeroshot (ported process_docs with
// Python's random). The manifest names the ports, the targets are the
// processed docs', and rescoring reproduces the scores.
func TestRunPortedHookTasks(t *testing.T) {
	for _, task := range []string{"hendrycks_math_algebra", "gpqa_main_cot_zeroshot"} {
		t.Run(task, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", sharedtest.Path(t, "tasks/lm-eval"),
				"--data-dir", sharedtest.Path(t, "tasks/data"), "--task", task, "--samplers", "greedy", "--limit", "2",
				"--max-new-tokens", "8", "--progress", "none", "--out", out}
			require.NoError(t, runQuiet(t, context.Background(), args))
			m, err := eval.ReadManifest(out)
			require.NoError(t, err)
			require.Contains(t, m.Task.Config, "ports")
			problems, err := eval.ReadProblems(out)
			require.NoError(t, err)
			require.Len(t, problems, 2)
			for _, p := range problems {
				assert.Equal(t, p.Doc["answer"], p.Target, "the target is the processed doc's answer")
			}
			before := runOutputs(t, out)
			_, _, err = eval.Rescore(out, eval.DefaultOutputs())
			require.NoError(t, err)
			assert.Equal(t, before[eval.ResultsJSONFile], runOutputs(t, out)[eval.ResultsJSONFile], "rescoring with the recorded ports")
		})
	}
}
