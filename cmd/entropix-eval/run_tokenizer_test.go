package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// A checkpoint without tokenizer.json runs with another directory's tokenizer,
// named as lm-eval names it (model_args tokenizer=) or by --tokenizer; the
// manifest checksums the tokenizer used. Without one, the refusal says how to
// name one and is a usage error.
func TestRunTokenizerFromAnotherDirectory(t *testing.T) {
	src := sharedtest.Path(t, "models/stories260K-hf")
	bare := t.TempDir()
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors"} {
		require.NoError(t, os.Symlink(filepath.Join(src, f), filepath.Join(bare, f)))
	}
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	base := []string{"--task", "gsm8k_cot_zeroshot", "--dataset", data, "--sampler", "greedy", "--limit", "1", "--max-new-tokens", "2", "--progress", "none"}

	err := runQuiet(t, context.Background(), append([]string{"--model", bare, "--out", t.TempDir()}, base...))
	require.Error(t, err)
	assert.True(t, errors.Is(err, errUsage), "exit 2: %v", err)
	assert.ErrorContains(t, err, "name one with --tokenizer")

	for _, args := range [][]string{
		{"--model", "hf", "--model_args", "pretrained=" + bare + ",tokenizer=" + src},
		{"--model", bare, "--tokenizer", filepath.Join(src, "tokenizer.json")},
	} {
		out := t.TempDir()
		require.NoError(t, runQuiet(t, context.Background(), append(append(args, "--out", out), base...)), "%v", args)
		m, err := eval.ReadManifest(out)
		require.NoError(t, err)
		var names []string
		for _, f := range m.Provenance.Model {
			names = append(names, filepath.Base(f.Path))
			if filepath.Base(f.Path) == "tokenizer.json" {
				assert.Equal(t, src, filepath.Dir(f.Path), "the tokenizer used is checksummed")
			}
		}
		assert.ElementsMatch(t, []string{"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}, names)
	}

	_, _, err = parseRunArgs([]string{"--model", "hf", "--model_args", "pretrained=" + bare + ",tokenizer=" + src, "--tokenizer", bare,
		"--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy"}, io.Discard)
	assert.ErrorContains(t, err, "name different tokenizers")
}

// lm-eval's --device maps to --backend and --devices.
func TestRunDeviceFlag(t *testing.T) {
	isolateDemoEnv(t)
	base := []string{"--model", "/a", "--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy"}
	for dev, want := range map[string][2]string{"cpu": {"cpu", "cpu"}, "cuda:1": {"cuda", "cuda:1"}, "cuda": {"cuda", "cuda"}} {
		cfg, _, err := parseRunArgs(append(base, "--device", dev), io.Discard)
		require.NoError(t, err, dev)
		assert.Equal(t, want[0], cfg.Backend, dev)
		assert.Equal(t, []string{want[1]}, cfg.Devices, dev)
	}
	_, _, err := parseRunArgs(append(base, "--device", "mps"), io.Discard)
	assert.ErrorContains(t, err, "no mps backend")
	assert.True(t, errors.Is(err, errUsage))
}

// Entropix on a vocabulary without " ..." is refused (exit 2) naming the
// look-alike tokens this tokenizer has, by id, and the spelling that picks one;
// stories260K's SentencePiece vocabulary has the newline byte token <0x0A> = 13.
func TestRunEntropixWithoutClarifyingTokenListsCandidates(t *testing.T) {
	args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--task", "gsm8k_cot_zeroshot",
		"--dataset", sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"), "--limit", "1", "--progress", "none",
		"--sampler", "entropix:frog", "--out", t.TempDir()}
	err := runQuiet(t, context.Background(), args)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errUsage), "exit 2: %v", err)
	assert.ErrorContains(t, err, `This tokenizer has "<0x0A>" id 13: add clarifying_token_id to the sampler, e.g. --sampler entropix:frog,clarifying_token_id=13`)
}

// Misspelt names get a suggestion: task, sampler, sampler field, variant.
func TestRunSuggestsNames(t *testing.T) {
	isolateDemoEnv(t)
	base := []string{"--model", "/a", "--dataset", "d", "--out", "o"}
	_, _, err := parseRunArgs(append(base, "--task", "gsm8k_cott"), io.Discard)
	assert.ErrorContains(t, err, `unknown task "gsm8k_cott" (did you mean gsm8k_cot?)`)
	for in, want := range map[string]string{
		"minp":                         "(did you mean min_p?)",
		"min_p:min_pp=0.1":             "field min_pp: unknown for sampler min_p (did you mean min_p?)",
		"entropix:frogg":               `unknown Entropix variant "frogg" (did you mean frog?)`,
		"entropix:frog,faithfull=true": "field faithfull: unknown Entropix field (did you mean faithful?)",
	} {
		spec, err := sampler.ParseSpec(in)
		require.NoError(t, err, in)
		_, err = eval.NewSamplerResolver(nil, nil)(spec)
		assert.ErrorContains(t, err, want, in)
	}
}
