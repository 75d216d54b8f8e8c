package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
)

func init() {
	register(command{
		name:    "demo",
		summary: "build a small random test model and greedy-decode from it (no data needed)",
		run: func(ctx context.Context, args []string) error {
			return runDemo(ctx, args, os.Stdout)
		},
	})
}

// demoPrompt is a fixed prompt of ids below every preset's vocabulary.
var demoPrompt = []int32{1, 17, 42, 99, 7}

// runDemo is interim: it shows the model → engine → greedy path working end to end
// until the evaluation run exists.
func runDemo(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	preset := fs.String("preset", "tiny", fmt.Sprintf("test model preset %v", engine.TestModelPresetNames()))
	cacheDir := fs.String("cache-dir", "", "where built models are kept (default: the user cache dir)/entropix-eval/models")
	maxTokens := fs.Int("max-tokens", 16, "tokens to generate")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *maxTokens < 1 {
		return fmt.Errorf("%w: --max-tokens %d must be positive", errUsage, *maxTokens)
	}
	dir, err := demoModel(*preset, *cacheDir)
	if err != nil {
		return err
	}
	m, err := engine.Load(dir)
	if err != nil {
		return err
	}
	defer m.Close()
	eng, err := cpu.New(m, engine.Options{
		Slots: 1, MaxSeqLen: len(demoPrompt) + *maxTokens, TopK: 1, MetricLayer: -1,
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	gen, err := greedyDecode(ctx, eng, demoPrompt, *maxTokens, nil)
	if err != nil {
		return err
	}
	c := &m.Config
	_, err = fmt.Fprintf(stdout, `model:     %q test preset in %s
           (%s, %d layers, hidden %d, %d heads, vocab %d, %s)
prompt:    %v
generated: %v

The weights are RANDOM, so the generated ids are noise. This demo only shows the
pipeline (build a checkpoint, load it, run the CPU engine, decode greedily)
working end to end; use a real checkpoint with 'entropix-eval generate'.
`, *preset, dir, c.Architecture, c.Layers, c.HiddenSize, c.Heads, c.VocabSize, c.DType, demoPrompt, gen)
	return err
}

// demoModel returns the preset's checkpoint directory under cacheDir, building it
// the first time. It is built beside and renamed into place, so an interrupted
// build is never mistaken for a model.
func demoModel(preset, cacheDir string) (string, error) {
	spec, err := engine.TestModelPreset(preset)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errUsage, err)
	}
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no user cache dir (%w); pass --cache-dir", err)
		}
		cacheDir = filepath.Join(base, "entropix-eval", "models")
	}
	dir := filepath.Join(cacheDir, preset)
	if _, err := os.Stat(filepath.Join(dir, engine.ConfigFile)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cacheDir, preset+".building-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up after a failure
	if err := engine.BuildTestModel(tmp, spec); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have built it meanwhile; use theirs.
		if _, statErr := os.Stat(filepath.Join(dir, engine.ConfigFile)); statErr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("install test model: %w", err)
	}
	return dir, nil
}
