package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/engine"
)

// demoInstructModels are the small instruct checkpoints the demo looks for in the
// Hugging Face cache, smallest first: the first one found is used. They are all
// Llama-family models the CPU backend runs.
var demoInstructModels = []string{
	"HuggingFaceTB/SmolLM2-135M-Instruct",
	"HuggingFaceTB/SmolLM2-360M-Instruct",
	"Qwen/Qwen2.5-0.5B-Instruct",
	"Qwen/Qwen2-0.5B-Instruct",
	"TinyLlama/TinyLlama-1.1B-Chat-v1.0",
	"meta-llama/Llama-3.2-1B-Instruct",
	"Qwen/Qwen2.5-1.5B-Instruct",
	"HuggingFaceTB/SmolLM2-1.7B-Instruct",
}

// demoRandomPreset is the test-model shape of the random fallback: small enough
// that the whole demo takes seconds on two cores.
const demoRandomPreset = "tiny"

// demoModelChoice is the checkpoint the demo runs and how it was found.
type demoModelChoice struct {
	Dir string
	// Repo is the hub repo id when the model came from the Hugging Face cache.
	Repo string
	// Random marks the random-weight fallback: its answers are noise.
	Random bool
}

// pickDemoModel chooses the demo's checkpoint: the one given, else the smallest
// known instruct model in a Hugging Face cache (unless forceRandom), else a random
// test model built (once) under modelCache.
func pickDemoModel(given string, forceRandom bool, hfCaches []string, modelCache string) (demoModelChoice, error) {
	if given != "" {
		dir, err := resolveModel("model", given, "", hfCaches)
		if err != nil || dir == given {
			return demoModelChoice{Dir: dir}, err
		}
		return demoModelChoice{Dir: dir, Repo: given}, nil
	}
	if !forceRandom {
		for _, repo := range demoInstructModels {
			if dir, ok := engine.FindHFSnapshot(hfCaches, repo); ok {
				return demoModelChoice{Dir: dir, Repo: repo}, nil
			}
		}
	}
	dir, err := randomDemoModel(modelCache)
	if err != nil {
		return demoModelChoice{}, err
	}
	return demoModelChoice{Dir: dir, Random: true}, nil
}

// randomDemoSpec is the random model: the tiny preset with the generated
// byte-level tokenizer, whose vocabulary it takes.
func randomDemoSpec() (engine.TestModelSpec, error) {
	spec, err := engine.TestModelPreset(demoRandomPreset)
	if err != nil {
		return engine.TestModelSpec{}, err
	}
	return engine.WithTestTokenizer(spec)
}

// userCacheHint names the user cache dir as help shows it: $XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS.
func userCacheHint() string {
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "entropix-eval", "models")
	}
	return "none on this machine: give --cache-dir"
}

// randomDemoModel returns the random model's directory under cacheDir (default:
// the user cache dir), building it the first time. The directory is named by a
// hash of the spec, tokenizer included, so a changed spec never reuses a stale
// build. It is built beside and renamed into place, so an interrupted build is
// never mistaken for a model.
func randomDemoModel(cacheDir string) (string, error) {
	spec, err := randomDemoSpec()
	if err != nil {
		return "", err
	}
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no user cache dir for the random demo model (%w); pass --cache-dir", err)
		}
		cacheDir = filepath.Join(base, "entropix-eval", "models")
	}
	key, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("random demo model: %w", err)
	}
	sum := sha256.Sum256(key)
	name := "demo-random-" + hex.EncodeToString(sum[:6])
	dir := filepath.Join(cacheDir, name)
	if engine.CompleteCheckpoint(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("random demo model: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, name+".building-")
	if err != nil {
		return "", fmt.Errorf("random demo model: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up after a failure
	if err := engine.BuildTestModel(tmp, spec); err != nil {
		return "", err
	}
	// A directory of this name that is not a complete checkpoint was damaged by
	// hand; builds only ever appear by rename. Replace it.
	if _, err := os.Stat(dir); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("replace damaged random demo model %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have built it meanwhile; use theirs.
		if engine.CompleteCheckpoint(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("install random demo model in %s: %w", dir, err)
	}
	return dir, nil
}
