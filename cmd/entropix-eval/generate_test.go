package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestGenerateTextStories: with a tokenizer.json next to the weights, generate
// also prints the decoded text; from BOS stories260K tells run.c's story.
func TestGenerateTextStories(t *testing.T) {
	out, err := runCmd(t, generateCmd, "--model", sharedtest.Path(t, "models/stories260K-hf"),
		"--ids", "1", "--max-new-tokens", "30")
	require.NoError(t, err)
	var got generateResult
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.IDs, 30)
	require.NotNil(t, got.Text, "the checkpoint has a tokenizer.json: %s", out)
	require.True(t, strings.HasPrefix(*got.Text, "Once upon a time, there was a little girl named Lily"), *got.Text)
}

// TestGenerateTextSkipsSpecial uses the builder model with the generated
// tokenizer: the text is the ids decoded with special tokens (its EOS) skipped,
// and an empty generation still has a "text" field.
func TestGenerateTextSkipsSpecial(t *testing.T) {
	spec, err := engine.TestModelPreset("tiny")
	require.NoError(t, err)
	spec, err = engine.WithTestTokenizer(spec)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, engine.BuildTestModel(dir, spec))
	tok, err := tokenizer.Load(dir)
	require.NoError(t, err)
	prompt, err := tok.Encode("Q: 2+2?", false)
	require.NoError(t, err)

	ids := make([]string, len(prompt))
	for i, id := range prompt {
		ids[i] = strconv.Itoa(int(id))
	}
	out, err := runCmd(t, generateCmd, "--model", dir, "--ids", strings.Join(ids, ","), "--max-new-tokens", "12", "--ignore-eos")
	require.NoError(t, err)
	var got generateResult
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.NotNil(t, got.Text)
	want, err := tok.Decode(got.IDs, true)
	require.NoError(t, err)
	require.Equal(t, want, *got.Text)

	out, err = runCmd(t, generateCmd, "--model", dir, "--ids", ids[0], "--max-new-tokens", "0")
	require.NoError(t, err)
	require.JSONEq(t, `{"ids": [], "text": ""}`, out)
}
