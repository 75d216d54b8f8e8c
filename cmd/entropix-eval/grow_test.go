package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func growArgs(t *testing.T, out string, extra ...string) []string {
	args := []string{
		"--model", sharedtest.Path(t, "models/stories260K-hf"),
		"--task", "gsm8k_cot_zeroshot",
		"--dataset", sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"),
		"--max-new-tokens", "8", "--progress", "none", "--out", out,
		"--sampler", "greedy", "--sampler", "min_p",
	}
	return append(args, extra...)
}

// A finished run grows by a seed, a sampler and a problem: the old items are
// not recomputed (the journal keeps its lines and gains only the new items), and
// the result files equal those of a fresh run of the grown sweep.
func TestRunGrowsWithoutRecomputing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "grown")
	require.NoError(t, runQuiet(t, context.Background(), growArgs(t, dir, "--seeds", "0", "--limit", "2")))
	journal := filepath.Join(dir, eval.JournalFile)
	before, err := os.ReadFile(journal)
	require.NoError(t, err)
	require.Equal(t, 2*1*2, bytes.Count(before, []byte("\n")), "samplers × seeds × problems")

	grown := growArgs(t, dir, "--sampler", "min_p:min_p=0.05,temperature=1.5", "--seeds", "0,1", "--limit", "3")
	require.NoError(t, runQuiet(t, context.Background(), grown))
	after, err := os.ReadFile(journal)
	require.NoError(t, err)
	assert.Equal(t, 3*2*3, bytes.Count(after, []byte("\n")), "only the new items were computed")
	assert.True(t, bytes.HasPrefix(after, before), "the finished items' lines are kept as they were")

	fresh := filepath.Join(root, "fresh")
	freshArgs := growArgs(t, fresh, "--sampler", "min_p:min_p=0.05,temperature=1.5", "--seeds", "0,1", "--limit", "3")
	require.NoError(t, runQuiet(t, context.Background(), freshArgs))
	assert.Equal(t, runOutputs(t, fresh), runOutputs(t, dir))

	// Taking work away, or changing how items are computed, is refused by name.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{growArgs(t, dir, "--sampler", "min_p:min_p=0.05,temperature=1.5", "--seeds", "0", "--limit", "3"), "seeds"},
		{growArgs(t, dir, "--sampler", "min_p:min_p=0.05,temperature=1.5", "--seeds", "0,1", "--limit", "3", "--max-new-tokens", "9"), "max_new_tokens"},
	} {
		err := runQuiet(t, context.Background(), tc.args)
		require.Error(t, err)
		assert.ErrorContains(t, err, tc.want)
	}
}
