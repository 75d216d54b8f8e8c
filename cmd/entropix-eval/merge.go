package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/eval"
)

func init() {
	register(command{
		name:    "merge",
		summary: "combine the run directories of 'run --shard i/n' into one run directory",
		examples: []string{
			`entropix-eval merge --out runs/sweep runs/sweep-0of2 runs/sweep-1of2`,
		},
		run: func(ctx context.Context, args []string) error {
			return runMerge(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

func runMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the merged run directory")
	py := regradeFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval merge --out DIR SHARD_DIR...\n\n"+
			"Every shard 0..n-1 of one sweep must be given once and be finished; the merged\n"+
			"directory holds the result files a single unsharded run would have written.\n"+
			"Shards of a sweep matrix (sweep.json) merge model × task by model × task.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: merge needs --out and at least one shard directory", errUsage)
	}
	o := eval.DefaultOutputs()
	o.Report = reportTo(stdout)
	stopPython, err := pythonGrading(py, &o)
	if err != nil {
		return err
	}
	defer stopPython()
	if _, err := os.Stat(filepath.Join(fs.Arg(0), eval.SweepIndexFile)); err == nil {
		return mergeMatrix(*out, fs.Args(), o, stdout)
	}
	if err := eval.Merge(*out, fs.Args(), o); err != nil {
		return err
	}
	m, err := eval.ReadManifest(*out)
	if err != nil {
		return err
	}
	return printSummary(stdout, *out, m, false)
}
