package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smokeArgs is a small real sweep: the real stories260K checkpoint and tokenizer,
// real GSM8K rows, two samplers (one random), two seeds.
func smokeArgs(t *testing.T, out string, extra ...string) []string {
	args := []string{
		"--model", sharedtest.Path(t, "models/stories260K-hf"),
		"--task", "gsm8k_cot_zeroshot",
		"--dataset", sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"),
		"--samplers", "greedy,min_p,min_p=0.05,temperature=1.5",
		"--seeds", "0,1", "--limit", "3", "--max-new-tokens", "10",
		"--progress", "none", "--out", out,
	}
	return append(args, extra...)
}

func runQuiet(t *testing.T, ctx context.Context, args []string) error {
	t.Helper()
	return runRun(ctx, args, io.Discard, io.Discard)
}

// samplesWithoutRunKey reads a run directory's samples.jsonl with its run key
// (fingerprint@start, one per run) blanked, after checking every sample names
// the manifest's run: what two equivalent runs must agree on.
func samplesWithoutRunKey(t *testing.T, dir string) string {
	t.Helper()
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, eval.SamplesFile))
	require.NoError(t, err)
	key, err := json.Marshal(m.RunKey)
	require.NoError(t, err)
	require.Equal(t, bytes.Count(b, []byte("\n")), bytes.Count(b, []byte(`"run_key":`+string(key))), "every sample names its run")
	return string(bytes.ReplaceAll(b, []byte(`"run_key":`+string(key)), []byte(`"run_key":""`)))
}

// runOutputs reads a run directory's results in a form that ignores wall-clock
// latency, the only column allowed to differ between equivalent runs.
func runOutputs(t *testing.T, dir string) map[string]any {
	t.Helper()
	out := map[string]any{}
	// The run key (fingerprint@start) names one run: two runs of the same
	// sweep differ in it (and the start date it holds) and in wall time only.
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	for _, name := range []string{eval.ResultsJSONFile, eval.ProblemsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		out[name] = string(b)
	}
	out[eval.SamplesFile] = samplesWithoutRunKey(t, dir)
	res, err := reports.ReadResults(filepath.Join(dir, eval.ResultsArrow))
	require.NoError(t, err)
	for i := range res {
		require.Equal(t, m.RunKey, res[i].RunKey)
		require.Equal(t, m.Started.UTC().Format("2006-01-02"), res[i].Date)
		res[i].LatencyMS, res[i].RunKey, res[i].Date = 0, "", ""
	}
	out[eval.ResultsArrow] = res
	tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
	require.NoError(t, err)
	for i := range tr {
		require.Equal(t, m.RunKey, tr[i].RunKey)
		tr[i].RunKey = ""
	}
	out[eval.TracesArrow] = tr
	return out
}

func referenceRun(t *testing.T) map[string]any {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, "--batch-size", "1")))
	return runOutputs(t, dir)
}

func TestRunIsIndependentOfBatchSizeAndWorkers(t *testing.T) {
	want := referenceRun(t)
	res := want[eval.ResultsArrow].([]reports.ResultRow)
	require.Len(t, res, 3*2*2)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"batch4", []string{"--batch-size", "4"}},
		{"batch16_chunk7", []string{"--batch-size", "16", "--prefill-chunk", "7"}},
		{"two_workers", []string{"--batch-size", "3", "--devices", "cpu,cpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, tc.args...)))
			assert.Equal(t, want, runOutputs(t, dir))
		})
	}
}

func TestRunCancelledThenResumed(t *testing.T) {
	want := referenceRun(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitJournal(filepath.Join(dir, eval.JournalFile), 2, 20*time.Second)
		cancel()
	}()
	err := runQuiet(t, ctx, smokeArgs(t, dir, "--batch-size", "2"))
	if err == nil {
		t.Skip("the run finished before the cancel landed")
	}
	require.ErrorIs(t, err, eval.ErrInterrupted)
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, "--batch-size", "5")))
	assert.Equal(t, want, runOutputs(t, dir))
}

func TestShardsMergeLikeOneRun(t *testing.T) {
	want := referenceRun(t)
	root := t.TempDir()
	var shards []string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, "--shard", fmt.Sprintf("%d/2", i))))
		shards = append(shards, dir)
	}
	merged := filepath.Join(root, "merged")
	var stdout bytes.Buffer
	require.NoError(t, runMerge(context.Background(), append([]string{"--out", merged}, shards...), &stdout, io.Discard))
	assert.Regexp(t, `\|gsm8k_cot_zeroshot\|greedy +\|`, stdout.String())
	assert.Equal(t, want, runOutputs(t, merged))

	stdout.Reset()
	require.NoError(t, runRescore(context.Background(), []string{merged}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "rescored "+merged)
	assert.Equal(t, want, runOutputs(t, merged), "rescoring with the same code changes nothing")
}

// TestInterruptedBinaryResumes builds the real binary, stops it in the middle of a
// run (SIGKILL: nothing runs on the way out; SIGINT: Ctrl-C) and runs the same
// command again, which must finish with the results of an uninterrupted run.
func TestInterruptedBinaryResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	want := referenceRun(t)
	bin := filepath.Join(t.TempDir(), "entropix-eval")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	for _, tc := range []struct {
		name   string
		signal os.Signal
	}{{"kill-9", os.Kill}, {"ctrl-c", os.Interrupt}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// One slot and a tiny prefill chunk make the run slow enough to stop mid-way.
			args := append([]string{"run"}, smokeArgs(t, dir, "--batch-size", "1", "--prefill-chunk", "1")...)
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			journaled := waitJournal(filepath.Join(dir, eval.JournalFile), 2, 60*time.Second)
			require.NoError(t, cmd.Process.Signal(tc.signal))
			err := cmd.Wait()
			require.True(t, journaled, "no progress before the signal: %s", stderr.String())
			require.Error(t, err, "the run finished before the signal")
			if tc.signal == os.Interrupt {
				assert.Contains(t, stderr.String(), "run the same command again to resume")
			}
			recs, err := eval.ReadJournal(filepath.Join(dir, eval.JournalFile))
			require.NoError(t, err)
			require.Less(t, len(recs), 12)

			out, err := exec.Command(bin, args...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, want, runOutputs(t, dir))
		})
	}
}

func waitJournal(path string, lines int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte{'\n'}) >= lines {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
