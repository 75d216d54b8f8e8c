package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
)

// TestPrefixCacheChangesNoResult runs the smoke sweep (3 problems × 2 samplers × 2
// seeds) with and without the prefix cache: results and traces are equal, and with
// the cache each problem's prompt is computed about once instead of 3 times (4
// items, greedy's second seed recorded from its first).
func TestPrefixCacheChangesNoResult(t *testing.T) {
	off := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, off, "--batch-size", "4", "--no-prefix-cache")))
	want := runOutputs(t, off)
	m, err := eval.ReadManifest(off)
	require.NoError(t, err)
	require.Zero(t, m.Stats.PrefixHits)
	require.Equal(t, m.Stats.PromptTokens, m.Stats.PrefillComputed)
	promptTokens := m.Stats.PromptTokens

	for _, args := range [][]string{
		{"--batch-size", "4"},
		{"--batch-size", "8", "--prefill-chunk", "7"},
		{"--batch-size", "3", "--prefix-cache-mb", "1"}, // evicts as it goes
	} {
		dir := t.TempDir()
		require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, args...)))
		assert.Equal(t, want, runOutputs(t, dir), "%v", args)
		m, err := eval.ReadManifest(dir)
		require.NoError(t, err)
		s := m.Stats
		assert.Equal(t, promptTokens, s.PromptTokens, "%v", args)
		if args[len(args)-1] == "1" {
			continue
		}
		// Each problem: one sequence computes the prompt, 2 reuse all but its tail.
		assert.Equal(t, 3*3, s.SequencesDecoded, "%v", args)
		assert.Equal(t, 3*4, s.SequencesRecorded, "%v", args)
		assert.GreaterOrEqual(t, s.PrefixHits, 3*2, "%v", args)
		assert.Less(t, 2*s.PrefillComputed, s.PromptTokens, "%v", args)
	}
}
