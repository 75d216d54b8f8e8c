package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Errors retrying cannot fix exit 2, wherever they are found: these exited
// 1, which Slurm requeue wrappers retry. A failure that may pass on another
// attempt (a missing model path on a network file system) stays 1.
func TestUsageErrorsExit2(t *testing.T) {
	root := t.TempDir()
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	repeats := filepath.Join(root, "repeats.yaml")
	require.NoError(t, os.WriteFile(repeats, []byte(fmt.Sprintf("task: rep\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
		"doc_to_text: \"{{question}}\"\ndoc_to_target: \"{{answer}}\"\nrepeats: 1e9\n", data)), 0o644))
	repeatsInt := filepath.Join(root, "repeats_int.yaml")
	require.NoError(t, os.WriteFile(repeatsInt, []byte(fmt.Sprintf("task: rep\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
		"doc_to_text: \"{{question}}\"\ndoc_to_target: \"{{answer}}\"\nrepeats: 1000000000\n", data)), 0o644))
	noTokenizer := t.TempDir()
	src := sharedtest.Path(t, "models/stories260K-hf")
	for _, f := range []string{"config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(noTokenizer, f), b, 0o644))
	}
	notRun := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notRun, "mine.txt"), nil, 0o644))
	shard := filepath.Join(root, "shard0")
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, shard, "--shard", "0/2", "--limit", "2")))

	run := func(extra ...string) func() error {
		return func() error {
			args := append(smokeArgs(t, filepath.Join(t.TempDir(), "run")), extra...)
			return runRun(context.Background(), args, io.Discard, io.Discard)
		}
	}
	for _, tc := range []struct {
		name string
		do   func() error
		want int
	}{
		{"unknown sampler", run("--sampler", "nosuch"), exitUsage},
		{"sampler field out of range", run("--sampler", "min_p:min_p=2"), exitUsage},
		{"entropix without a clarifying token", run("--sampler", "entropix"), exitUsage},
		{"unknown task", run("--task", "nosuchtask"), exitUsage},
		{"repeats 1e9 in task YAML", run("--task", repeats), exitUsage},
		{"repeats 1000000000 in task YAML", run("--task", repeatsInt), exitUsage},
		{"model without tokenizer.json", run("--model", noTokenizer), exitUsage},
		{"NULL answers", run("--dataset", sharedtest.Path(t, "data/bad/null-answers.parquet"), "--limit", "5"), exitUsage},
		{"out is not a run directory", func() error {
			return runRun(context.Background(), smokeArgs(t, notRun), io.Discard, io.Discard)
		}, exitUsage},
		{"merge into an input", func() error {
			return runMerge(context.Background(), []string{"--out", shard, shard}, io.Discard, io.Discard)
		}, exitUsage},
		{"limit 0", run("--limit", "0"), exitUsage},
		{"missing model", run("--model", filepath.Join(root, "nonexistent")), exitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			require.Error(t, err)
			assert.Equal(t, tc.want, exitCode(err), "%v", err)
		})
	}
}
