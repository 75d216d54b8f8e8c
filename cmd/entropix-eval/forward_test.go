package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// builderModel writes the "tiny" preset (4 heads, vocab 256) into a temp dir.
func builderModel(t *testing.T) string {
	t.Helper()
	spec, err := engine.TestModelPreset("tiny")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "tiny")
	require.NoError(t, engine.BuildTestModel(dir, spec))
	return dir
}

func runCmd(t *testing.T, run func(context.Context, []string, *bytes.Buffer) error, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, &out)
	return out.String(), err
}

func forwardCmd(ctx context.Context, args []string, w *bytes.Buffer) error {
	return runForward(ctx, args, w)
}
func generateCmd(ctx context.Context, args []string, w *bytes.Buffer) error {
	return runGenerate(ctx, args, w)
}
func demoCmd(ctx context.Context, args []string, w *bytes.Buffer) error { return runDemo(ctx, args, w) }

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestForwardJSONShape(t *testing.T) {
	model := builderModel(t)
	for _, mode := range []string{"masked", "padded"} {
		t.Run(mode, func(t *testing.T) {
			out, err := runCmd(t, forwardCmd, "--model", model, "--ids", "1, 2,3", "--attn-mode", mode, "--pad-len", "64")
			require.NoError(t, err)
			require.Equal(t, 1, strings.Count(out, "\n"), "one JSON object on one line")
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Equal(t, []string{"attn", "entropy", "log_partition", "top", "varentropy"}, keys(got))
			top := got["top"].([]any)
			require.Len(t, top, 10)
			for _, c := range top {
				require.Equal(t, []string{"id", "logit"}, keys(c.(map[string]any)))
			}
			first, second := top[0].(map[string]any), top[1].(map[string]any)
			require.GreaterOrEqual(t, first["logit"].(float64), second["logit"].(float64))
			attn := got["attn"].(map[string]any)
			require.Equal(t, []string{"agreement", "entropy", "head_entropy", "interaction_strength", "varentropy"}, keys(attn))
			require.Len(t, attn["head_entropy"].([]any), 4)
			if mode == "padded" { // 64 slots, mostly empty: close to log2(64) = 6 bits
				require.Greater(t, attn["entropy"].(float64), 5.5)
			}
		})
	}
	t.Run("top", func(t *testing.T) {
		out, err := runCmd(t, forwardCmd, "--model", model, "--ids", "5", "--candidates", "3")
		require.NoError(t, err)
		var got forwardResult
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		require.Len(t, got.Top, 3)
	})
}

func TestGenerateJSONShape(t *testing.T) {
	model := builderModel(t)
	out, err := runCmd(t, generateCmd, "--model", model, "--ids", "1,2,3", "--max-new-tokens", "5", "--ignore-eos")
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, []string{"ids"}, keys(got))
	require.Len(t, got["ids"], 5)

	out, err = runCmd(t, generateCmd, "--model", model, "--ids", "1", "--max-new-tokens", "0")
	require.NoError(t, err)
	require.JSONEq(t, `{"ids": []}`, out)
}

// TestGenerateStories checks generate end to end on the real stories260K: from BOS
// it tells run.c's story ("Once upon a time, there was a little girl named Lily").
func TestGenerateStories(t *testing.T) {
	var g struct {
		Runs []struct {
			IDs []int32 `json:"ids"`
		} `json:"runs"`
	}
	sharedtest.ReadJSON(t, "golden/models/stories260K_llama2c.json", &g)
	out, err := runCmd(t, generateCmd, "--model", sharedtest.Path(t, "models/stories260K/stories260K.bin"),
		"--ids", "1", "--max-new-tokens", "30")
	require.NoError(t, err)
	var got generateResult
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, g.Runs[0].IDs[1:31], got.IDs)
}

func TestCommandErrors(t *testing.T) {
	model := builderModel(t)
	for _, c := range []struct {
		name  string
		run   func(context.Context, []string, *bytes.Buffer) error
		args  []string
		usage bool
		want  string
	}{
		{"forward no model", forwardCmd, []string{"--ids", "1"}, true, "--model is required"},
		{"forward bad ids", forwardCmd, []string{"--model", model, "--ids", "1,x"}, true, `entry 2 ("x")`},
		{"forward no ids", forwardCmd, []string{"--model", model}, true, "--ids is empty"},
		{"forward bad mode", forwardCmd, []string{"--model", model, "--ids", "1", "--attn-mode", "odd"}, true, "attention mode"},
		{"forward id beyond vocab", forwardCmd, []string{"--model", model, "--ids", "1,256"}, false, "outside the vocabulary"},
		{"forward missing model", forwardCmd, []string{"--model", filepath.Join(model, "nope"), "--ids", "1"}, false, "nope"},
		{"generate no model", generateCmd, []string{"--ids", "1"}, true, "--model is required"},
		{"generate negative max", generateCmd, []string{"--model", model, "--ids", "1", "--max-new-tokens", "-1"}, true, "negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runCmd(t, c.run, c.args...)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, c.usage, errors.Is(err, errUsage))
		})
	}
}
