package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildBinary builds the CLI into a temporary directory (the build cache makes
// repeated builds cheap).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "entropix-eval")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee.ExitCode()
}

// An empty shard is a finished shard: exit 0 and an empty report, so a Slurm or
// Kubernetes array does not mark the index failed. Usage errors exit 2, failures 1.
func TestExitCodesForSchedulers(t *testing.T) {
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "empty-shard")
	args := append([]string{"run"}, smokeArgs(t, dir, "--limit", "1", "--shard", "1/2")...)
	out, err := exec.Command(bin, args...).CombinedOutput()
	assert.Equal(t, 0, exitStatus(t, err), "%s", out)
	assert.FileExists(t, filepath.Join(dir, runreport.HTMLFile))
	res, err := reports.ReadResults(filepath.Join(dir, eval.ResultsArrow))
	require.NoError(t, err)
	assert.Empty(t, res)

	out, err = exec.Command(bin, "report", dir).CombinedOutput()
	assert.Equal(t, 0, exitStatus(t, err), "report on an empty run writes an empty report: %s", out)
	assert.Contains(t, string(out), "has no rows")

	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"unknown flag", []string{"run", "--no-such-flag"}, 2},
		{"bad flag value", []string{"run", "--seeds", "x"}, 2},
		{"missing fields", []string{"run", "--model", "m"}, 2},
		{"unknown command", []string{"frobnicate"}, 2},
		{"help", []string{"run", "-h"}, 0},
		{"absurd repeats", append([]string{"run"}, smokeArgs(t, t.TempDir(), "--repeats", "1000000000", "--limit", "1")...), 2},
		{"missing model", append([]string{"run"}, smokeArgs(t, t.TempDir(), "--model", "/nonexistent")...), 1},
		{"report of nothing", []string{"report", t.TempDir()}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(bin, tc.args...).CombinedOutput()
			assert.Equal(t, tc.want, exitStatus(t, err), "%s", out)
		})
	}
}

// copyModel copies a shared checkpoint so a test can break it.
func copyModel(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	copyModelTo(t, name, dst)
	return dst
}

// copyModelTo copies a shared checkpoint into dst.
func copyModelTo(t *testing.T, name, dst string) {
	t.Helper()
	src := sharedtest.Path(t, "models/"+name)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
}

// poisonTensor overwrites an F32 tensor of model.safetensors with NaN.
func poisonTensor(t *testing.T, dir, tensor string) {
	t.Helper()
	rewriteTensor(t, dir, tensor, func(float32) float32 { return float32(math.NaN()) })
}

// rewriteTensor replaces each value x of an F32 tensor of model.safetensors by f(x).
func rewriteTensor(t *testing.T, dir, tensor string, f func(float32) float32) {
	t.Helper()
	path := filepath.Join(dir, "model.safetensors")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint64(b[:8])
	var header map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b[8:8+n], &header))
	var info struct {
		DType   string   `json:"dtype"`
		Offsets [2]int64 `json:"data_offsets"`
	}
	require.NoError(t, json.Unmarshal(header[tensor], &info))
	require.Equal(t, "F32", info.DType)
	data := b[8+n:]
	for o := info.Offsets[0]; o < info.Offsets[1]; o += 4 {
		binary.LittleEndian.PutUint32(data[o:], math.Float32bits(f(math.Float32frombits(binary.LittleEndian.Uint32(data[o:])))))
	}
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// Everything checkable is checked before the run directory exists: an id beyond
// the vocabulary, an added token beyond it, NaN weights.
func TestPreflightFailsBeforeTheRunDirectoryExists(t *testing.T) {
	nan := copyModel(t, "stories260K-hf")
	poisonTensor(t, nan, "model.norm.weight")

	added := copyModel(t, "stories260K-hf")
	tokPath := filepath.Join(added, "tokenizer.json")
	var tj map[string]any
	b, err := os.ReadFile(tokPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &tj))
	tj["added_tokens"] = append(tj["added_tokens"].([]any), map[string]any{
		"id": 99999, "content": "<|far|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	b, err = json.Marshal(tj)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tokPath, b, 0o644))

	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"clarifying id", []string{"--samplers", "entropix,clarifying_token_id=99999"}, "clarifying_token_id 99999 is not in this tokenizer's vocabulary"},
		{"added token", []string{"--model", added}, "token ids reach 99999"},
		{"NaN weights", []string{"--model", nan}, "the logits are not finite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			err := runRun(context.Background(), smokeArgs(t, dir, tc.extra...), io.Discard, io.Discard)
			require.ErrorContains(t, err, tc.want)
			assert.NoDirExists(t, dir)
		})
	}
}

// A batch size far beyond the items is capped at their number instead of
// reserving memory for slots no sequence uses.
func TestHugeBatchSizeIsCappedAtItems(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir, "--batch-size", "100000000")))
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, 12, m.BatchSize)
	assert.Equal(t, eval.StatusComplete, m.Status)
}

// merge and report refuse a directory another process holds, naming it; merge
// refuses an output that is one of its inputs.
func TestMergeAndReportRespectTheLock(t *testing.T) {
	root := t.TempDir()
	var shards []string
	for i, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(root, []string{"a", "b"}[i])
		require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, d, "--shard", s)))
		shards = append(shards, d)
	}
	err := runMerge(context.Background(), append([]string{"--out", shards[0]}, shards...), io.Discard, io.Discard)
	require.ErrorContains(t, err, "is the input")

	lock, err := eval.LockDir(shards[0])
	require.NoError(t, err)
	err = runReport(context.Background(), []string{shards[0]}, io.Discard, io.Discard)
	require.True(t, errors.Is(err, eval.ErrLocked), "%v", err)
	lock.Unlock()
	var stdout bytes.Buffer
	require.NoError(t, runReport(context.Background(), []string{shards[0]}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "report: ")
}
