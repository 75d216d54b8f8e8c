package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval"
)

func init() {
	register(command{
		name:    "score",
		summary: "score responses generated elsewhere with a task's prompts, filters and metrics (no model)",
		examples: []string{
			`entropix-eval score --task gpqa_main_cot_zeroshot --include-path lm_eval/tasks --data-dir hub --responses r.jsonl --out runs/vllm`,
		},
		run: func(ctx context.Context, args []string) error {
			return runScore(args, os.Stdout, os.Stderr)
		},
	})
}

func runScore(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg eval.Config
	fs.StringVar(&cfg.Task, "task", "", "task name (built-in or under --include-path) or task YAML file")
	fs.Func("include-path", "directory of lm-eval task YAML files to add (repeatable)", func(s string) error {
		cfg.IncludePaths = append(cfg.IncludePaths, s)
		return nil
	})
	fs.Func("data-dir", "local mirror laid out like the hub (repeatable)", func(s string) error {
		cfg.DataDirs = append(cfg.DataDirs, s)
		return nil
	})
	fs.BoolVar(&cfg.PythonHooks, "python-hooks", false, pythonHooksUsage+"; score wires the prompt side (process_docs, doc_to_text, doc_to_target)")
	fs.StringVar(&cfg.Python, "python", "", pythonUsage)
	fs.StringVar(&cfg.Dataset, "dataset", "", "the evaluated split's file or glob")
	fs.StringVar(&cfg.TrainDataset, "train-dataset", "", "the few-shot split's file or glob")
	numFewshot := fs.Int("num-fewshot", -1, "override the task's num_fewshot (the prompts in samples.jsonl use it)")
	responses := fs.String("responses", "", `JSON Lines, one {"doc_index": N, "response": "...", "repeat": R} per response (docs in the task's evaluated order, after process_docs)`)
	out := fs.String("out", "", "run directory to write (must not hold a run)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval score --task NAME [--include-path DIR] [--data-dir DIR] [--dataset FILE] --responses R.jsonl --out DIR\n\n"+
			"Writes the run files a model run writes (results, samples, lm-eval's results and\n"+
			"samples files, the report) for responses generated elsewhere, so report and\n"+
			"compare work on them. Responses must cover docs 0..n-1.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.Task == "" || *responses == "" || *out == "" {
		return fmt.Errorf("%w: score needs --task, --responses and --out", errUsage)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: score takes no arguments", errUsage)
	}
	if *numFewshot >= 0 {
		cfg.NumFewshot = numFewshot
	}
	stopPython, _, err := startPython(context.Background(), &cfg)
	if err != nil {
		return err
	}
	defer stopPython()
	task, err := eval.ResolveTask(cfg)
	if err != nil {
		return err
	}
	resps, err := eval.ReadExternalResponses(*responses)
	if err != nil {
		return err
	}
	src := eval.DataSourceOf(cfg, task, engine.HFCacheDirs())
	o := eval.PythonOutputs(cfg, task)
	o.Report = reportTo(stdout)
	if err := eval.ScoreExternal(*out, cfg, task, src, resps, o); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "scored %d responses to %s into %s\n", len(resps), task.Name, *out)
	return nil
}
