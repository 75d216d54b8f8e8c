package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/backends"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/eval/lmevalout"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// fullSweep is the GSM8K test split, the nightly sweep's problem count.
const fullSweep = 1319

func numCPU() int { return runtime.NumCPU() }

func buildTestModel(dir string, tokenizer []byte) error {
	spec, err := engine.TestModelPreset("smollm2-135m")
	if err != nil {
		return err
	}
	spec.ExtraFiles = map[string][]byte{"tokenizer.json": tokenizer}
	return engine.BuildTestModel(dir, spec)
}

// sweepResult is one timed run of the sweep.
type sweepResult struct {
	variant sweepVariant
	wall    time.Duration // the whole command: loading, tokenizing, writing results
	jobs    int           // sampler × seed runs
	stats   eval.RunStats
}

// sweepVariant is one way of running the sweep: its label in the printout, what
// it changes in the sweep, and the same as flags of an entropix-eval binary
// (-bin, for timing another build).
type sweepVariant struct {
	label string
	apply func(*eval.Config)
	args  []string
}

var (
	withPrefixCache = sweepVariant{label: "prefix cache on", apply: func(*eval.Config) {}}
	noPrefixCache   = sweepVariant{label: "--no-prefix-cache", apply: func(c *eval.Config) { c.NoPrefixCache = true }, args: []string{"--no-prefix-cache"}}
	bf16Precision   = sweepVariant{label: "prefix cache on, --matmul-precision bf16", apply: func(c *eval.Config) { c.MatmulPrecision = "bf16" }, args: []string{"--matmul-precision", "bf16"}}
)

// runSweep runs the sweep into a new run directory under the work folder and
// reads its manifest's counts: in this process through the library (eval.Open,
// as entropix-eval run does), or with -bin by that binary.
func runSweep(ctx context.Context, o options, model string, v sweepVariant) (*sweepResult, error) {
	out := filepath.Join(o.work, "runs", time.Now().UTC().Format("20060102-150405.000"))
	dataset := filepath.Join(o.shared, "data", "gsm8k", "main", "test-00000-of-00001.parquet")
	t0 := time.Now()
	run := runInProcess
	if o.bin != "" {
		run = runBinary
	}
	if err := run(ctx, o, model, dataset, out, v); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	wall := time.Since(t0)
	m, err := eval.ReadManifest(out)
	if err != nil {
		return nil, err
	}
	if m.Stats == nil {
		return nil, fmt.Errorf("sweep: %s has no stats", out)
	}
	return &sweepResult{variant: v, wall: wall, jobs: len(m.Jobs), stats: *m.Stats}, nil
}

// runInProcess is entropix-eval run's path without the CLI: a Config, Open,
// Run, and the report and lm-eval files written as run writes them.
func runInProcess(ctx context.Context, o options, model, dataset, out string, v sweepVariant) error {
	cfg := eval.Config{
		Model: model, Task: "gsm8k_cot", Dataset: dataset, Limit: o.problems,
		BatchSize: o.batch, Threads: o.threads, MaxNewTokens: o.maxNew, Out: out,
	}
	var err error
	if cfg.Samplers, err = sampler.ParseSpecs(o.samplers); err != nil {
		return fmt.Errorf("-samplers: %w", err)
	}
	for _, s := range strings.Split(o.seeds, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("-seeds %q: want non-negative integers", o.seeds)
		}
		cfg.Seeds = append(cfg.Seeds, seed)
	}
	v.apply(&cfg)
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sweep in process (%s): %s samplers %s seeds %s -n %d -batch %d -threads %d\n",
		v.label, model, o.samplers, o.seeds, o.problems, o.batch, o.threads)
	runner, release, err := eval.Open(ctx, cfg, backends.Builtin, eval.Sizing{})
	if err != nil {
		return err
	}
	defer release()
	runner.Progress = eval.NewLogLines(slog.Default(), 30*time.Second)
	runner.Outputs.Report = func(dir string) error {
		if _, err := runreport.Build(dir, runreport.Options{}); err != nil {
			return err
		}
		if _, err := lmevalout.Write(dir); err != nil && !errors.Is(err, lmevalout.ErrNotWritten) {
			return err
		}
		return nil
	}
	_, err = runner.Run(ctx)
	return err
}

// runBinary runs the sweep with an entropix-eval binary, another build to time
// beside this one.
func runBinary(ctx context.Context, o options, model, dataset, out string, v sweepVariant) error {
	args := []string{"run", "--model", model, "--task", "gsm8k_cot", "--dataset", dataset,
		"--samplers", o.samplers, "--seeds", o.seeds, "--limit", strconv.Itoa(o.problems),
		"--batch-size", strconv.Itoa(o.batch), "--threads", strconv.Itoa(o.threads),
		"--progress", "log", "--out", out}
	if o.maxNew > 0 {
		args = append(args, "--max-new-tokens", strconv.Itoa(o.maxNew))
	}
	args = append(args, v.args...)
	cmd := exec.CommandContext(ctx, o.bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "$ %s %s\n", o.bin, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", o.bin, err)
	}
	return nil
}

// projected scales the measured time to the full test split (the few-shot prefix
// is computed once either way, so this slightly overestimates).
func (r *sweepResult) projected() float64 {
	return r.wall.Seconds() * fullSweep / float64(r.recorded()/r.jobs)
}

// recorded is the sequences the run wrote: a deterministic sampler's other
// seeds are recorded from one decoded sequence, so this is more than the
// sequences decoded (manifests from before the count: the items run).
func (r *sweepResult) recorded() int {
	if r.stats.SequencesRecorded > 0 {
		return r.stats.SequencesRecorded
	}
	return r.stats.ItemsThisRun
}

func (r *sweepResult) print(o options) {
	s := r.stats
	problems := float64(r.recorded()) / float64(r.jobs)
	label := r.variant.label
	fmt.Printf("\nsweep (%s): gsm8k_cot 8-shot, random SmolLM2-135M BF16, samplers %s × seeds %s × %.0f problems = %d sequences (%d decoded), batch %d, %d threads; load average %s\n",
		label, o.samplers, o.seeds, problems, r.recorded(), s.SequencesDecoded, o.batch, o.threads, loadAvg())
	wall := r.wall.Seconds()
	fmt.Printf("  wall %.1f s (workers %.1f s, in the engine %.1f s)\n", wall, s.WallSeconds, s.EngineSeconds)
	fmt.Printf("  problems/s %.3f (all %d runs of a problem), sequences/s %.2f\n", problems/wall, r.jobs, float64(r.recorded())/wall)
	fmt.Printf("  generated %d tokens, %.1f tok/s\n", s.GeneratedTokens, float64(s.GeneratedTokens)/wall)
	ratio := "n/a"
	if s.PrefillComputed > 0 {
		ratio = fmt.Sprintf("1/%.1f", float64(s.PromptTokens)/float64(s.PrefillComputed))
	}
	fmt.Printf("  prefill computed/requested %d/%d = %s (prefix cache hits %d)\n", s.PrefillComputed, s.PromptTokens, ratio, s.PrefixHits)
	fmt.Printf("  outside the engine %.1f%% of the workers' time\n", 100*s.OutsideShare)
	budget := "the task's max_new_tokens (256)"
	if o.maxNew > 0 {
		budget = fmt.Sprintf("max_new_tokens %d", o.maxNew)
	}
	fmt.Printf("  projected full sweep (%d problems × %d runs, %s): %.2f h\n", fullSweep, r.jobs, budget, r.projected()/3600)
}
