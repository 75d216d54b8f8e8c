package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lm-eval's spellings give the same sweep as ours.
func TestRunLMEvalSpellings(t *testing.T) {
	isolateDemoEnv(t)
	model := t.TempDir()
	ours := []string{"--model", model, "--task", "gsm8k_cot", "--dataset", "d.jsonl", "--out", "o",
		"--chat-template", "--fewshot-as-multiturn=false", "--batch-size", "4", "--seeds", "3",
		"--samplers", "combined,temperature=0.7,top_p=0.9", "--max-new-tokens", "64", "--limit", "20"}
	lmeval := []string{"--model", "hf", "--model_args", "pretrained=" + model + ",dtype=float32,trust_remote_code=True",
		"--tasks", "gsm8k_cot", "--dataset", "d.jsonl", "--output_path", "o",
		"--apply_chat_template", "--fewshot_as_multiturn=false", "--batch_size", "4", "--seed", "3",
		"--gen_kwargs", "temperature=0.7,top_p=0.9,do_sample=True,max_gen_toks=64", "--limit", "20"}
	want, _, err := parseRunArgs(ours, io.Discard)
	require.NoError(t, err)
	got, _, err := parseRunArgs(lmeval, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, "combined(temperature=0.7,top_p=0.9)", got.Samplers[0].DisplayLabel())
}

func TestRunLMEvalSpellingErrors(t *testing.T) {
	isolateDemoEnv(t)
	base := []string{"--task", "gsm8k_cot", "--dataset", "d.jsonl", "--out", "o", "--sampler", "greedy"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"model type without a checkpoint", []string{"--model", "vllm"}, "--model_args pretrained="},
		{"two checkpoints", []string{"--model", "/a", "--model_args", "pretrained=/b"}, "name different checkpoints"},
		{"unknown model_args key", []string{"--model_args", "pretrained=/a,load_in_8bit=True"}, "load_in_8bit is not supported"},
		{"dtype the backend does not compute in", []string{"--model_args", "pretrained=/a,dtype=bfloat16"}, "computes in float32"},
		{"bfloat16 on the CPU points at the matmul precision", []string{"--model_args", "pretrained=/a,dtype=bfloat16"}, "--matmul-precision bf16 rounds"},
		{"no task", []string{"--model", "/a", "--tasks", ","}, "no task named"},
		{"lm-eval's four seeds", []string{"--model", "/a", "--seed", "0,1234,1234,1234"}, "--seeds 0,1,2"},
		{"unknown gen_kwargs key", []string{"--model", "/a", "--gen_kwargs", "until=Q:"}, "until is not supported"},
		{"limit neither count nor fraction", []string{"--model", "/a", "--limit", "2.5"}, "whole number"},
		{"ambiguous sampler list", []string{"--model", "/a", "--samplers", "min_p,top_p=0.9"}, "--sampler min_p:top_p=0.9 or --sampler top_p:top_p=0.9"},
		{"batch size", []string{"--model", "/a", "--batch_size", "0"}, "positive integer or auto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseRunArgs(append(append([]string{}, base...), tc.args...), io.Discard)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errUsage), "a command-line mistake exits 2")
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestRunSamplerFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sampler.Spec
	}{
		{"greedy", sampler.Spec{Name: "greedy"}},
		{"entropix:frog", sampler.Spec{Name: "entropix:frog"}},
		{"min_p:temperature=0.7,min_p=0.1", sampler.Spec{Name: "min_p", Params: map[string]any{"temperature": 0.7, "min_p": 0.1}}},
		{"entropix:frog:attn_mode=padded", sampler.Spec{Name: "entropix:frog", Params: map[string]any{"attn_mode": "padded"}}},
		// sampler/README.md's spelling (sampler.ParseFlag's grammar): fields after ','.
		{"entropix:frog,faithful=true", sampler.Spec{Name: "entropix:frog", Params: map[string]any{"faithful": true}}},
		{"entropix:smollm-360m,faithful=true,pad_len=64", sampler.Spec{Name: "entropix:smollm-360m", Params: map[string]any{"faithful": true, "pad_len": 64.0}}},
		{"combined:vllm-v1,top_p=0.9", sampler.Spec{Name: "combined:vllm-v1", Params: map[string]any{"top_p": 0.9}}},
		{"min_p,min_p=0.05,temperature=1.5", sampler.Spec{Name: "min_p", Params: map[string]any{"min_p": 0.05, "temperature": 1.5}}},
	} {
		got, err := sampler.ParseSpec(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	// One value is one sampler: a second name is refused, not dropped.
	for _, bad := range []string{"", "min_p=0.1", "greedy,min_p", ":x=1", "entropix:frog,faithful=true,greedy", "min_p:min_p=0.1,entropix"} {
		_, err := sampler.ParseSpec(bad)
		assert.Error(t, err, bad)
	}
	// Repeated, they keep their order and override the sweep file's list.
	isolateDemoEnv(t)
	cfg, _, err := parseRunArgs([]string{"--model", "/a", "--task", "t", "--dataset", "d", "--out", "o",
		"--sampler", "min_p:temperature=0.7,min_p=0.1", "--sampler", "entropix:frog"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"min_p(min_p=0.1,temperature=0.7)", "entropix:frog"},
		[]string{cfg.Samplers[0].DisplayLabel(), cfg.Samplers[1].DisplayLabel()})
	// The label is the same whether the spec came from the flag or from YAML.
	yml, err := eval.ParseConfig([]byte("samplers: [{name: min_p, min_p: 0.1, temperature: 0.7}]"))
	require.NoError(t, err)
	assert.Equal(t, cfg.Samplers[0].DisplayLabel(), yml.Samplers[0].DisplayLabel())
}

// TestRunSamplerFlagResolves follows each documented spelling through the resolver
// run uses, to the variant and fields the sampler is built with: the spelling
// sampler/README.md documents once ran plain entropix (variant original).
func TestRunSamplerFlagResolves(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]any // fields of the built sampler's description
	}{
		{"entropix:frog,faithful=true,clarifying_token_id=5", map[string]any{"variant": "frog", "faithful": true}},
		{"entropix:frog:faithful=true,clarifying_token_id=5", map[string]any{"variant": "frog", "faithful": true}},
		{"entropix:smollm-135m,clarifying_token_id=5", map[string]any{"variant": "smollm-135m", "faithful": false}},
		{"entropix,clarifying_token_id=5", map[string]any{"variant": "original", "faithful": false}},
	} {
		spec, err := sampler.ParseSpec(tc.in)
		require.NoError(t, err, tc.in)
		f, err := eval.NewSamplerResolver(nil, nil)(spec)
		require.NoError(t, err, tc.in)
		var desc map[string]any
		require.NoError(t, json.Unmarshal([]byte(f.Describe()), &desc), tc.in)
		for k, v := range tc.want {
			assert.Equal(t, v, desc[k], "%s: %s", tc.in, k)
		}
	}
}

func TestGenKwargsSampler(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   sampler.Spec
		maxNew int
	}{
		{"temperature=0", sampler.Spec{Name: "greedy"}, 0},
		{"do_sample=False,temperature=0.7", sampler.Spec{Name: "greedy"}, 0},
		{"do_sample=True", sampler.Spec{Name: "temperature"}, 0},
		{"temperature=0.6,top_k=20,max_gen_toks=256", sampler.Spec{Name: "combined", Params: map[string]any{"temperature": 0.6, "top_k": 20.0}}, 256},
	} {
		got, maxNew, err := genKwargsSampler(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.maxNew, maxNew, tc.in)
	}
}

// Without a sampler, run decodes as the task's generation_kwargs say (greedy for
// gsm8k_cot: do_sample false), as lm-eval does, and says so.
func TestRunDefaultSamplerFromTask(t *testing.T) {
	isolateDemoEnv(t)
	var stderr bytes.Buffer
	cfg, _, err := parseRunArgs([]string{"--model", "/a", "--task", "gsm8k_cot", "--dataset", "d", "--out", "o"}, &stderr)
	require.NoError(t, err)
	require.Len(t, cfg.Samplers, 1)
	assert.Equal(t, "greedy", cfg.Samplers[0].DisplayLabel())
	assert.Contains(t, stderr.String(), "no sampler given: greedy, as lm-eval decodes the task (gsm8k_cot: generation_kwargs {do_sample: false} → greedy)")
}

func TestRunLimitFraction(t *testing.T) {
	isolateDemoEnv(t)
	_, rf, err := parseRunFlags([]string{"--model", "/a", "--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy", "--limit", "0.1"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, eval.Sizing{LimitFraction: 0.1}, rf.lm.sizing, "eval.Open keeps ceil(N × 0.1) problems")
	_, rf, err = parseRunFlags([]string{"--model", "/a", "--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy", "--batch_size", "auto"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, rf.lm.sizing.AutoBatch)
	cfg, rf, err := parseRunFlags([]string{"--model", "/a", "--tasks", "gsm8k, gsm8k_cot", "--dataset", "d", "--out", "o", "--sampler", "greedy", "--num_fewshot", "3", "--system_instruction", "Be brief."}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"gsm8k", "gsm8k_cot"}, rf.lm.tasks, "each runs into its own directory under --out")
	assert.Equal(t, 3, *cfg.NumFewshot)
	assert.Equal(t, "Be brief.", cfg.SystemInstruction)
}

// --model ORG/NAME is the newest complete snapshot in a hub cache, or the one
// --revision names; a miss lists every place looked.
func TestResolveHubModelName(t *testing.T) {
	isolateDemoEnv(t)
	hub, other := t.TempDir(), t.TempDir()
	caches := []string{other, hub}
	const repo = "HuggingFaceTB/SmolLM2-360M-Instruct"
	v1 := fakeSnapshot(t, hub, repo, "c0ffee", true)
	v2 := fakeSnapshot(t, hub, repo, "beef", true)
	fakeSnapshot(t, hub, repo, "partial", false)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(v1, old, old))

	got, err := resolveModel("model", repo, "", caches)
	require.NoError(t, err)
	assert.Equal(t, v2, got, "the newest complete snapshot")
	got, err = resolveModel("model", repo, "c0ffee", caches)
	require.NoError(t, err)
	assert.Equal(t, v1, got, "a commit")
	refs := filepath.Join(hub, "models--HuggingFaceTB--SmolLM2-360M-Instruct", "refs")
	require.NoError(t, os.MkdirAll(refs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(refs, "v1.0"), []byte("c0ffee\n"), 0o644))
	got, err = resolveModel("model", repo, "v1.0", caches)
	require.NoError(t, err)
	assert.Equal(t, v1, got, "a tag")

	for _, rev := range []string{"partial", "nope", "../../x"} {
		_, err = resolveModel("model", repo, rev, caches)
		require.Error(t, err, rev)
	}
	_, err = resolveModel("model", "Org/Missing", "", caches)
	require.ErrorIs(t, err, errUsage)
	assert.ErrorContains(t, err, filepath.Join(other, "models--Org--Missing"))
	assert.ErrorContains(t, err, filepath.Join(hub, "models--Org--Missing"))

	local := t.TempDir()
	got, err = resolveModel("model", local, "", caches)
	require.NoError(t, err)
	assert.Equal(t, local, got)
	_, err = resolveModel("model", local, "main", caches)
	assert.ErrorContains(t, err, "is a local path")

	// run resolves it through the real cache directories.
	t.Setenv("HF_HUB_CACHE", hub)
	cfg, _, err := parseRunArgs([]string{"--model_args", "pretrained=" + repo + ",revision=c0ffee", "--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, v1, cfg.Model)
}

func TestRunDatasetDirectoryHint(t *testing.T) {
	isolateDemoEnv(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "main"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main", "test-00000-of-00001.parquet"), nil, 0o644))
	for _, flagName := range []string{"dataset", "train-dataset"} {
		args := []string{"--model", "/a", "--task", "t", "--dataset", "d", "--out", "o", "--sampler", "greedy", "--" + flagName, dir}
		_, _, err := parseRunArgs(args, io.Discard)
		require.ErrorIs(t, err, errUsage)
		assert.ErrorContains(t, err, "--"+flagName+" '"+filepath.Join(dir, "*", "*.parquet")+"'")
	}
	_, _, err := parseRunArgs([]string{"--model", "/a", "--task", "t", "--dataset", t.TempDir(), "--out", "o", "--sampler", "greedy"}, io.Discard)
	assert.ErrorContains(t, err, "no .parquet, .jsonl or .csv files")
}

func TestPerSeedTable(t *testing.T) {
	keys := []any{"exact_match,strict-match", "exact_match,flexible-extract"}
	results := map[string]map[string]any{
		"gsm8k|greedy/seed=0": {"score_keys": keys, "exact_match,strict-match": 0.5, "exact_match_stderr,strict-match": 0.25,
			"exact_match,flexible-extract": 0.75, "exact_match_stderr,flexible-extract": nil},
		"gsm8k|entropix(attn_mode=padded)/seed=1": {"score_keys": keys, "exact_match,strict-match": 0.125, "exact_match_stderr,strict-match": 0.0625,
			"exact_match,flexible-extract": 1.0, "exact_match_stderr,flexible-extract": 0.0},
	}
	got := perSeedTable(results, []string{"gsm8k|greedy/seed=0", "gsm8k|entropix(attn_mode=padded)/seed=1"})
	assert.Equal(t, ""+
		"sampler/seed                       exact_match,strict-match  exact_match,flexible-extract\n"+
		"greedy/seed=0                                 50.0% ± 25.0%                   75.0% ± n/a\n"+
		"entropix(attn_mode=padded)/seed=1              12.5% ± 6.2%                 100.0% ± 0.0%\n", got)
}
