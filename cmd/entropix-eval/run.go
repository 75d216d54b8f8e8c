package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/backends"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/safepath"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
	"github.com/entropix-eval/entropix-eval/sampler"
)

func init() {
	register(command{
		name:    "run",
		summary: "evaluate a model on a benchmark with several samplers and seeds (resumable)",
		examples: []string{
			`entropix-eval run configs/gsm8k-smoke.yaml --model HuggingFaceTB/SmolLM2-135M-Instruct --limit 10`,
			`entropix-eval run --model HuggingFaceTB/SmolLM2-360M-Instruct --task gsm8k_cot --dataset "data/gsm8k/test-*.parquet" --sampler greedy --sampler entropix:frog --seeds 0,1,2 --out runs/smol`,
			`entropix-eval run --model hf --model_args pretrained=HuggingFaceTB/SmolLM2-360M-Instruct,dtype=auto --tasks gsm8k_cot --dataset test.parquet --gen_kwargs temperature=0 --limit 0.1 --batch_size auto --output_path runs/lm`,
		},
		run: func(ctx context.Context, args []string) error {
			return runRun(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// runFlags are the flags that override a sweep file's fields; only flags given on
// the command line override anything.
type runFlags struct {
	fs         *flag.FlagSet
	progress   string
	perSeed    bool
	cpuProfile string
	lm         lmEvalFlags
}

// newRunFlags binds the flags to cfg's fields with their current values as
// defaults, so parsing changes exactly the fields whose flags are given.
func newRunFlags(cfg *eval.Config, stderr io.Writer) *runFlags {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := &runFlags{fs: fs}
	fs.StringVar(&cfg.Name, "name", cfg.Name, "sweep name")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "Hugging Face model directory (config.json, *.safetensors, tokenizer.json)")
	fs.StringVar(&cfg.Tokenizer, "tokenizer", cfg.Tokenizer, "directory, tokenizer.json or ORG/NAME whose tokenizer.json (and tokenizer_config.json) replace the model's")
	fs.StringVar(&cfg.Backend, "backend", cfg.Backend, "cpu or cuda (default cpu)")
	fs.Func("devices", "comma-separated devices, one worker each (cpu,cpu or cuda:0,cuda:1)", func(s string) error {
		cfg.Devices = splitList(s)
		return nil
	})
	fs.IntVar(&cfg.Threads, "threads", cfg.Threads, "CPU threads per worker (0: the machine's cores split evenly over the workers)")
	fs.IntVar(&cfg.MaxSeqLen, "max-seq-len", cfg.MaxSeqLen, "KV-cache length of one sequence (default 2048)")
	fs.IntVar(&cfg.PrefillChunk, "prefill-chunk", cfg.PrefillChunk, "prompt tokens per sequence per step (default 256)")
	fs.IntVar(&cfg.PrefixCacheMB, "prefix-cache-mb", cfg.PrefixCacheMB, "memory per worker for reused prompt prefixes, MiB (default 1024)")
	fs.BoolVar(&cfg.NoParquet, "no-parquet", cfg.NoParquet, "write the run's tables as Arrow files only (by default each .arrow also gets a .parquet copy beside it, for DuckDB and pandas)")
	fs.BoolVar(&cfg.NoPrefixCache, "no-prefix-cache", cfg.NoPrefixCache, "compute every prompt in full (the results are the same)")
	fs.StringVar(&cfg.MatmulPrecision, "matmul-precision", cfg.MatmulPrecision, matmulPrecisionUsage)
	fs.StringVar(&rf.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to this file (`go tool pprof`); not part of the run's fingerprint")
	fs.IntVar(&cfg.Candidates, "candidates", cfg.Candidates, "top-K candidates the engine returns per step (0: whole vocabulary)")
	fs.StringVar(&cfg.AttnMode, "attn-mode", cfg.AttnMode, "attention statistics of samplers without their own view (baselines' trace columns): masked or padded; each Entropix variant uses its own (attn_mode/pad_len in its spec)")
	fs.IntVar(&cfg.PadLen, "pad-len", cfg.PadLen, "padded cache length for --attn-mode padded")
	fs.StringVar(&cfg.Task, "task", cfg.Task, "task name (e.g. gsm8k_cot; `entropix-eval tasks` lists them) or an lm-eval task FILE.yaml")
	fs.Func("include-path", "directory of lm-eval task YAML files to add (repeatable; lm-eval's --include_path)", func(s string) error {
		cfg.IncludePaths = append(cfg.IncludePaths, s)
		return nil
	})
	fs.BoolVar(&cfg.PythonHooks, "python-hooks", cfg.PythonHooks, pythonHooksUsage+"; a run wires the prompt side (process_docs, doc_to_text, doc_to_target)")
	fs.StringVar(&cfg.Python, "python", cfg.Python, pythonUsage)
	fs.StringVar(&cfg.Dataset, "dataset", cfg.Dataset, "evaluated split: file or glob (.parquet, .jsonl, .csv, datasets-cache .arrow); default: found offline from the task's dataset_path")
	fs.StringVar(&cfg.TrainDataset, "train-dataset", cfg.TrainDataset, "few-shot split: file or glob (tasks with random shots)")
	fs.Func("data-dir", "local mirror of hub datasets, DIR/<dataset_path>/<dataset_name>/<split>-*.parquet (repeatable)", func(s string) error {
		cfg.DataDirs = append(cfg.DataDirs, s)
		return nil
	})
	fs.Func("num-fewshot", "override the task's num_fewshot", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("want an integer")
		}
		cfg.NumFewshot = &n
		return nil
	})
	fs.BoolVar(&cfg.ChatTemplate, "chat-template", cfg.ChatTemplate, "render prompts with the tokenizer's chat template")
	fs.BoolFunc("fewshot-as-multiturn", "with --chat-template: one user/assistant turn pair per shot (default true, as lm-eval >= 0.4.10); =false puts the shots in the first user turn", func(s string) error {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", s)
		}
		cfg.FewshotAsMultiturn = &v
		return nil
	})
	fs.StringVar(&cfg.PrimaryFilter, "primary-filter", cfg.PrimaryFilter, "filter whose comparisons the report Holm-adjusts and leads with (default: the task's first)")
	fs.IntVar(&cfg.MaxNewTokens, "max-new-tokens", cfg.MaxNewTokens, "generation budget (default: the task's)")
	fs.BoolVar(&cfg.FirstTokenArgmax, "first-token-argmax", cfg.FirstTokenArgmax, "take the argmax as the first token (original Entropix loop)")
	fs.Func("samplers", `samplers, e.g. "greedy,min_p,min_p=0.05,temperature=1.5,entropix:frog" (--sampler where a field could start a sampler)`, rf.lm.addSamplerList)
	fs.Func("seeds", "comma-separated run seeds (default 0)", func(s string) error {
		seeds, err := parseSeeds(s)
		cfg.Seeds = seeds
		return err
	})
	fs.IntVar(&cfg.Repeats, "repeats", cfg.Repeats, "samples per problem and seed (default 1)")
	fs.StringVar(&cfg.Shard, "shard", cfg.Shard, "evaluate shard i of n (i/n); merge the shards with 'entropix-eval merge'")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "the run directory")
	fs.StringVar(&rf.progress, "progress", "auto", "auto (bars on a terminal, log lines otherwise), bars, log or none")
	fs.BoolVar(&rf.perSeed, "per-seed", false, "also print each sampler × seed's scores (the table above pools the seeds)")
	addRunAliases(fs, cfg, &rf.lm)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval run [SWEEP.yaml] [flags]\n\n"+
			"Flags override the sweep file's fields. Running the same command again resumes\n"+
			"an interrupted run in --out, or grows a finished one by more seeds, samplers or problems.\n"+
			"A sweep file listing models: or tasks: runs each model × task into\n"+
			"OUT/<model>/<task>; a sampler field given a list is a grid (docs/sweeps.md).")
		fmt.Fprint(fs.Output(), runChoices())
		printFlags(fs, fs.Output())
	}
	return rf
}

// parseRunArgs reads an optional sweep file (before or after the flags) and
// applies the flags given on the command line over it. The flags are parsed twice:
// once to find the file, then over the file's config, so a flag overrides a field
// only when it is given.
func parseRunArgs(args []string, stderr io.Writer) (eval.Config, string, error) {
	cfg, rf, err := parseRunFlags(args, stderr)
	if err != nil {
		return eval.Config{}, "", err
	}
	return cfg, rf.progress, nil
}

// parseRunFlags is parseRunArgs with every flag's value, for run itself: one
// sweep, ready to run (a matrix sweep is refused; runRun expands it).
func parseRunFlags(args []string, stderr io.Writer) (eval.Config, *runFlags, error) {
	cfg, rf, err := parseSweepArgs(args, stderr)
	if err != nil {
		return eval.Config{}, nil, err
	}
	if cfg.IsMatrix() {
		return eval.Config{}, nil, fmt.Errorf("%w: the sweep lists models or tasks (a matrix): run it with entropix-eval run", errUsage)
	}
	if cfg, err = prepareSweep(cfg, rf, stderr); err != nil {
		return eval.Config{}, nil, err
	}
	return cfg, rf, nil
}

// parseSweepArgs reads the sweep file and the flags over it, nothing checked
// yet: the flags are parsed twice, once to find the file, then over the
// file's config, so a flag overrides a field only when it is given. --model
// and --task replace a matrix's models and tasks.
func parseSweepArgs(args []string, stderr io.Writer) (eval.Config, *runFlags, error) {
	var probe eval.Config
	rf := newRunFlags(&probe, stderr)
	if err := parseFlags(rf.fs, args); err != nil {
		return eval.Config{}, nil, err
	}
	if rf.fs.NArg() > 1 {
		return eval.Config{}, nil, fmt.Errorf("%w: unexpected arguments %q (one sweep file at most)", errUsage, rf.fs.Args()[1:])
	}
	file := rf.fs.Arg(0)
	args, _ = splitFlags(rf.fs, args)
	var cfg eval.Config
	if file != "" {
		var err error
		if cfg, err = eval.LoadConfig(file); err != nil {
			return eval.Config{}, nil, fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	rf = newRunFlags(&cfg, io.Discard)
	if err := parseFlags(rf.fs, args); err != nil {
		return eval.Config{}, nil, err
	}
	if err := rf.finish(&cfg, probe.Model); err != nil {
		return eval.Config{}, nil, err
	}
	if cfg.Model != "" && probe.Model != "" {
		cfg.Models = nil
	}
	if probe.Task != "" || len(rf.lm.tasks) > 0 {
		cfg.Tasks = nil
	}
	return cfg, rf, nil
}

// prepareSweep checks one sweep (one model, one task or group) and resolves
// its model: defaults filled, every field validated, the model found.
func prepareSweep(cfg eval.Config, rf *runFlags, stderr io.Writer) (eval.Config, error) {
	if err := defaultSampler(&cfg, rf.lm.tasks, stderr); err != nil {
		return eval.Config{}, err
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return eval.Config{}, fmt.Errorf("%w: invalid sweep:\n%w", errUsage, err)
	}
	if err := rf.lm.checkDType(cfg.Backend); err != nil {
		return eval.Config{}, err
	}
	for flagName, path := range map[string]string{"dataset": cfg.Dataset, "train-dataset": cfg.TrainDataset} {
		if err := checkDataPath(flagName, path); err != nil {
			return eval.Config{}, err
		}
	}
	dir, err := resolveModel("model", cfg.Model, rf.lm.revision, engine.HFCacheDirs())
	if err != nil {
		return eval.Config{}, err
	}
	cfg.Model = dir
	if cfg.Tokenizer, err = resolveModel("tokenizer", cfg.Tokenizer, "", engine.HFCacheDirs()); err != nil {
		return eval.Config{}, err
	}
	return cfg, nil
}

// defaultSampler gives a run without samplers the one its task's
// generation_kwargs name, as lm-eval runs a task without --gen_kwargs, and says
// so; listed are lm-eval's --tasks when it names several.
func defaultSampler(cfg *eval.Config, listed []string, stderr io.Writer) error {
	if len(cfg.Samplers) > 0 || cfg.Task == "" {
		return nil
	}
	tasks := listed
	if len(tasks) < 2 {
		var err error
		if tasks, err = eval.ExpandTask(*cfg); err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	spec, why, err := eval.TaskDefaultSampler(*cfg, tasks)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	cfg.Samplers = []sampler.Spec{spec}
	fmt.Fprintf(stderr, "no sampler given: %s, as lm-eval decodes the task (%s)\n", spec.DisplayLabel(), why)
	return nil
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, rf, err := parseSweepArgs(args, stderr)
	if err != nil {
		return err
	}
	if rf.cpuProfile != "" {
		stop, err := startCPUProfile(rf.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if cfg.IsMatrix() {
		return runMatrix(ctx, cfg, rf, stdout, stderr)
	}
	if cfg, err = prepareSweep(cfg, rf, stderr); err != nil {
		return err
	}
	return runSweepTasks(ctx, cfg, rf, stdout)
}

// runSweepTasks evaluates cfg's task, or each task of its group or tag.
func runSweepTasks(ctx context.Context, cfg eval.Config, rf *runFlags, stdout io.Writer) error {
	tasks := rf.lm.tasks // lm-eval's --tasks a,b: one run directory each, no group aggregate
	listed := len(tasks) > 1
	if !listed {
		var err error
		if tasks, err = eval.ExpandTask(cfg); err != nil {
			return err
		}
	}
	if len(tasks) == 1 && tasks[0] == cfg.Task {
		return runOne(ctx, cfg, rf, stdout)
	}
	// A group or tag runs its tasks one after another, each into its own run
	// directory under --out (lm-eval evaluates a group's members as separate
	// tasks too), then the group's aggregate_metric_list into group_results.json.
	fmt.Fprintf(stdout, "%s: %d tasks: %s\n", cfg.Task, len(tasks), strings.Join(tasks, ", "))
	out := cfg.Out
	if err := eval.ClaimDir(out); err != nil {
		return err
	}
	for _, t := range tasks {
		c := cfg
		c.Task = t
		var err error
		if err := safepath.Name("task", t); err != nil {
			return fmt.Errorf("%w: %s: %w", errUsage, cfg.Task, err)
		}
		if c.Out, err = safepath.Join(out, t); err != nil {
			return fmt.Errorf("%w: %s: %w", errUsage, cfg.Task, err)
		}
		if err := runOne(ctx, c, rf, stdout); err != nil {
			return fmt.Errorf("task %s: %w", t, err)
		}
	}
	if listed {
		return nil
	}
	return writeGroupSummary(stdout, cfg, out)
}

// runOne evaluates one task into cfg.Out.
func runOne(ctx context.Context, cfg eval.Config, rf *runFlags, stdout io.Writer) error {
	sz, progress, perSeed := rf.lm.sizing, rf.progress, rf.perSeed
	runner, cleanup, err := eval.Open(ctx, cfg, backends.Builtin, sz)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := useProgress(runner, progress); err != nil {
		return err
	}
	runner.Outputs.Report = reportTo(stdout)
	m, err := runner.Run(ctx)
	if err != nil {
		return err
	}
	return printSummary(stdout, cfg.Out, m, perSeed)
}

// reportTo builds a finished run directory's report (run and merge call it
// under the directory's lock), so it always carries report.html beside its data.
func reportTo(stdout io.Writer) func(dir string) error {
	return func(dir string) error {
		if m, err := eval.ReadManifest(dir); err == nil && !eval.HasRowScores(m.Task) {
			// Perplexities aggregate over docs only: no per-problem score to report on.
			slog.Info("report.html not written: the task's metrics have no per-doc score", "task", m.Task.Name)
		} else if err := writeReport(dir, runreport.Options{}, stdout); err != nil {
			return err
		}
		return writeLMEvalFiles(dir, stdout)
	}
}

// useProgress sets the runner's progress display; with live bars, log lines are
// routed above them so a warning never tears a frame.
func useProgress(runner *eval.Runner, mode string) error {
	p, err := pickProgress(mode)
	if err != nil {
		return err
	}
	runner.Progress = p
	if bars, ok := p.(interface{ LogWriter() io.Writer }); ok {
		log := slog.New(slog.NewTextHandler(bars.LogWriter(), nil))
		slog.SetDefault(log)
		runner.Log = log
	}
	return nil
}

func pickProgress(mode string) (eval.Progress, error) {
	log := slog.Default()
	switch mode {
	case "auto":
		return eval.NewProgress(os.Stderr, log, 30*time.Second), nil
	case "bars":
		return eval.NewBars(os.Stderr), nil
	case "log":
		return eval.NewLogLines(log, 30*time.Second), nil
	case "none":
		return nil, nil
	}
	return nil, fmt.Errorf("%w: --progress %q: want auto, bars, log or none", errUsage, mode)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseSeeds(s string) ([]uint64, error) {
	var seeds []uint64
	for _, p := range splitList(s) {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed %q: want a non-negative integer", p)
		}
		seeds = append(seeds, v)
	}
	if len(seeds) == 0 {
		return nil, errors.New("no seeds")
	}
	return seeds, nil
}
