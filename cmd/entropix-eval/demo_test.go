package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// isolateDemoEnv points every place the demo looks for models at empty temp
// dirs, so the test machine's own Hugging Face cache cannot change the result.
func isolateDemoEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
}

// TestDemoRandomModel runs the demo as on a fresh machine: no Hugging Face cache,
// no ../shared, an empty cache dir. It builds the random model with its generated
// tokenizer, runs the real pipeline, writes the run directory and report, and
// says the model is random; a second run reuses the built model.
func TestDemoRandomModel(t *testing.T) {
	isolateDemoEnv(t)
	t.Setenv("ENTROPIX_SHARED", "")
	out := filepath.Join(t.TempDir(), "run")
	got, err := runCmd(t, demoCmd, "--out", out, "--progress", "none")
	require.NoError(t, err, got)

	for _, f := range []string{eval.ResultsArrow, eval.TracesArrow, eval.ResultsJSONFile, "manifest.json", datasets.DemoFileName} {
		require.FileExists(t, filepath.Join(out, f))
	}
	require.Contains(t, got, "run directory: "+out)
	require.Contains(t, got, filepath.Join(out, "report.html"))
	require.Contains(t, got, "RANDOM")
	require.Contains(t, got, "noise")
	for _, s := range []string{"greedy", "min_p", "entropix"} {
		require.Regexp(t, `\n\|gsm8k_cot_zeroshot\|`+s+` *\|strict-match`, got, "the pooled table's row")
	}
	require.Equal(t, 1, strings.Count(got, filepath.Join(out, "report.html")), "each path printed once")
	require.Contains(t, got, "next:")
	// The generated tokenizer has " ...", so Entropix runs with its default token.
	require.Contains(t, got, `clarifying token " ..."`)
	require.NotContains(t, got, "note:")

	var m struct {
		Config   eval.Config `json:"config"`
		Problems int         `json:"problems"`
	}
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, 12, m.Problems)
	require.Equal(t, demoRandomMaxNew, m.Config.MaxNewTokens)
	require.Equal(t, []uint64{0}, m.Config.Seeds)

	// The model went to the user cache dir ($XDG_CACHE_HOME here), built once.
	models := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "entropix-eval", "models")
	entries, err := os.ReadDir(models)
	require.NoError(t, err)
	require.Len(t, entries, 1, "one model, no leftover build directories")
	built, err := os.Stat(filepath.Join(models, entries[0].Name(), "model.safetensors"))
	require.NoError(t, err)

	again, err := runCmd(t, demoCmd, "--out", filepath.Join(t.TempDir(), "run2"), "--progress", "none", "--limit", "2")
	require.NoError(t, err, again)
	require.Contains(t, again, "the first 2 of 12")
	reused, err := os.Stat(filepath.Join(models, entries[0].Name(), "model.safetensors"))
	require.NoError(t, err)
	require.Equal(t, built.ModTime(), reused.ModTime(), "the cached model is reused, not rebuilt")
}

// fakeSnapshot lays out a Hugging Face cache entry for repo with one revision.
// complete=false leaves the weights out, as an interrupted download does.
func fakeSnapshot(t *testing.T, cache, repo, rev string, complete bool) string {
	t.Helper()
	org, name, _ := strings.Cut(repo, "/")
	dir := filepath.Join(cache, "models--"+org+"--"+name, "snapshots", rev)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	files := []string{"config.json", "tokenizer.json"}
	if complete {
		files = append(files, "model.safetensors")
	}
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644))
	}
	return dir
}

func TestDemoFindsHFCacheModel(t *testing.T) {
	isolateDemoEnv(t)
	hub := t.TempDir()
	none := t.TempDir() // a cache dir with nothing in it comes first
	caches := []string{none, hub}

	// The smallest model is half downloaded (its blob link dangles), so the
	// next smallest complete one is chosen, whatever larger ones exist.
	small := fakeSnapshot(t, hub, "HuggingFaceTB/SmolLM2-135M-Instruct", "aaa", false)
	require.NoError(t, os.Symlink(filepath.Join(hub, "blobs", "missing"), filepath.Join(small, "model.safetensors")))
	want := fakeSnapshot(t, hub, "HuggingFaceTB/SmolLM2-360M-Instruct", "bbb", true)
	fakeSnapshot(t, hub, "Qwen/Qwen2.5-0.5B-Instruct", "ccc", true)
	fakeSnapshot(t, hub, "meta-llama/Llama-3.2-1B-Instruct", "ddd", true)

	got, err := pickDemoModel("", false, caches, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, demoModelChoice{Dir: want, Repo: "HuggingFaceTB/SmolLM2-360M-Instruct"}, got)

	// refs/main names the revision to use when there are several.
	newer := fakeSnapshot(t, hub, "HuggingFaceTB/SmolLM2-360M-Instruct", "eee", true)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(newer, old, old)) // not simply the newest
	refs := filepath.Join(hub, "models--HuggingFaceTB--SmolLM2-360M-Instruct", "refs")
	require.NoError(t, os.MkdirAll(refs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(refs, "main"), []byte("eee\n"), 0o644))
	got, err = pickDemoModel("", false, caches, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, newer, got.Dir)

	// A sharded snapshot is complete only with every shard its index names.
	sharded := fakeSnapshot(t, t.TempDir(), "Org/Sharded", "r", false)
	index := `{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}`
	require.NoError(t, os.WriteFile(filepath.Join(sharded, "model.safetensors.index.json"), []byte(index), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sharded, "model-00001-of-00002.safetensors"), nil, 0o644))
	require.False(t, engine.CompleteCheckpoint(sharded))
	require.NoError(t, os.WriteFile(filepath.Join(sharded, "model-00002-of-00002.safetensors"), nil, 0o644))
	require.True(t, engine.CompleteCheckpoint(sharded))

	// --model wins, and --random skips the cache.
	got, err = pickDemoModel("/some/model", false, caches, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, demoModelChoice{Dir: "/some/model"}, got)
	got, err = pickDemoModel("", true, caches, t.TempDir())
	require.NoError(t, err)
	require.True(t, got.Random)
}

func TestDemoHFCacheDirs(t *testing.T) {
	isolateDemoEnv(t)
	t.Setenv("HF_HUB_CACHE", "/hub-cache")
	t.Setenv("HF_HOME", "/hf-home")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	require.Equal(t, []string{"/hub-cache", "/hf-home/hub", "/xdg/huggingface/hub", "/home/u/.cache/huggingface/hub"},
		engine.HFCacheDirs())
}

// TestDemoRealModelFromCache runs the demo on a real checkpoint found in a
// Hugging Face cache layout (stories260K-hf under a SmolLM2 name): it says where
// the model came from, and since that tokenizer has no " ..." Entropix falls
// back to the newline byte token, as configs/demo.yaml does, and says so.
func TestDemoRealModelFromCache(t *testing.T) {
	src := sharedtest.Path(t, "models/stories260K-hf")
	isolateDemoEnv(t)
	// As the hub client does: files in snapshots/<rev>/ are links to blobs.
	hub := filepath.Join(os.Getenv("HOME"), ".cache", "huggingface", "hub")
	org, name, _ := strings.Cut(demoInstructModels[0], "/")
	snap := filepath.Join(hub, "models--"+org+"--"+name, "snapshots", "0123abc")
	require.NoError(t, os.MkdirAll(snap, 0o755))
	for _, f := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"} {
		require.NoError(t, os.Symlink(filepath.Join(src, f), filepath.Join(snap, f)))
	}

	out := filepath.Join(t.TempDir(), "run")
	got, err := runCmd(t, demoCmd, "--out", out, "--progress", "none", "--limit", "2", "--max-new-tokens", "8")
	require.NoError(t, err, got)
	require.Contains(t, got, demoInstructModels[0]+" from the Hugging Face cache")
	require.Contains(t, got, snap)
	require.NotContains(t, got, "RANDOM")
	require.Contains(t, got, `note:     this tokenizer has no " ..." token; Entropix inserts "<0x0A>" (id 13)`)
	require.Contains(t, got, "run directory: "+out)
	require.FileExists(t, filepath.Join(out, eval.ResultsArrow))
}

func TestDemoErrors(t *testing.T) {
	isolateDemoEnv(t)
	noTokenizer := builderModel(t)
	for _, c := range []struct {
		name  string
		args  []string
		usage bool
		want  string
	}{
		{"unknown flag", []string{"--nope"}, true, "nope"},
		{"argument", []string{"extra"}, true, "no arguments"},
		{"negative budget", []string{"--max-new-tokens", "-1"}, true, "negative"},
		{"no tokenizer", []string{"--model", noTokenizer, "--out", t.TempDir()}, false, "tokenizer.json"},
		{"missing model", []string{"--model", filepath.Join(t.TempDir(), "nope"), "--out", t.TempDir()}, false, "nope"},
		{"clarifying id outside vocab", []string{"--random", "--cache-dir", t.TempDir(), "--clarifying-token-id", "100000", "--out", t.TempDir()}, true, "outside the vocabulary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runCmd(t, demoCmd, c.args...)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, c.usage, errors.Is(err, errUsage))
		})
	}
}

func TestDemoRunDirNames(t *testing.T) {
	parent := t.TempDir()
	now := time.Date(2026, 11, 22, 6, 30, 5, 0, time.Local)
	first := newDemoRunDir(parent, now)
	require.Equal(t, filepath.Join(parent, "demo-20261122-063005"), first)
	require.NoError(t, os.MkdirAll(first, 0o755))
	require.Equal(t, first+"-2", newDemoRunDir(parent, now), "a demo in the same second gets its own directory")
}
