package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
)

// The faithful SmolLM first token through the whole pipeline: its prompt is fed
// with Input.PromptStats, its first trace row carries the prompt-averaged metrics
// the rules read (not the last position's), and the run is the same bit for bit
// whichever prefill chunk fed the prompts.
func TestSmolLMFaithfulFirstTokenEndToEnd(t *testing.T) {
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	run := func(chunk, sampler string) []reports.TraceRow {
		dir := filepath.Join(t.TempDir(), "run")
		require.NoError(t, runQuiet(t, context.Background(), []string{
			"--model", sharedtest.Path(t, "models/stories260K-hf"),
			"--task", "gsm8k_cot_zeroshot", "--dataset", data,
			"--seeds", "0", "--limit", "3", "--max-new-tokens", "4", "--prefill-chunk", chunk,
			"--samplers", sampler, "--progress", "none", "--out", dir,
		}))
		tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
		require.NoError(t, err)
		for i := range tr {
			tr[i].RunKey = "" // names the run directory and its start time
		}
		return tr
	}
	const faithful = "entropix:smollm-360m,faithful=true,clarifying_token_id=13"
	whole := run("256", faithful)
	chunked := run("7", faithful)
	// Printed, so that NaN fields (an inserted token's log-probability) compare equal.
	require.Equal(t, fmt.Sprintf("%+v", whole), fmt.Sprintf("%+v", chunked), "prefill chunking changed the faithful SmolLM run")
	last := run("256", faithful+",first_token_metrics=last")
	firsts := 0
	for i, r := range whole {
		if r.Step != 0 {
			continue
		}
		firsts++
		require.NotEqual(t, last[i].Entropy, r.Entropy, "problem %d: the first row shows the last position's entropy", r.ProblemID)
		require.NotEqual(t, last[i].AttnEntropy, r.AttnEntropy, "problem %d", r.ProblemID)
		if last[i].Token == r.Token {
			require.Equal(t, last[i].LogProb, r.LogProb, "the first token's log-probability is the last position's, whatever the rules read")
		}
	}
	require.Equal(t, 3, firsts)
}

// With the prefix cache on (the default), a faithful SmolLM sequence bypasses it —
// the prompt-averaged metrics need every prompt position computed — while the
// greedy sequences of the same problems share their prompts: the run equals one
// with the cache off.
func TestPromptMetricsBypassPrefixCache(t *testing.T) {
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	run := func(extra ...string) string {
		dir := filepath.Join(t.TempDir(), "run")
		require.NoError(t, runQuiet(t, context.Background(), append([]string{
			"--model", sharedtest.Path(t, "models/stories260K-hf"),
			"--task", "gsm8k_cot_zeroshot", "--dataset", data,
			"--seeds", "0,1", "--limit", "3", "--max-new-tokens", "4", "--prefill-chunk", "16",
			"--samplers", "greedy,entropix:smollm-360m,faithful=true,clarifying_token_id=13,temperature,entropix:smollm-135m,faithful=true,clarifying_token_id=13",
			"--progress", "none", "--out", dir,
		}, extra...)))
		tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
		require.NoError(t, err)
		for i := range tr {
			tr[i].RunKey = "" // names the run directory and its start time
		}
		return fmt.Sprintf("%+v", tr)
	}
	require.Equal(t, run("--no-prefix-cache"), run())
}
