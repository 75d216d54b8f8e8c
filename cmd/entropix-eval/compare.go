package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

func init() {
	register(command{
		name:    "compare",
		summary: "paired comparison of two runs of one task; exits 1 when a sampler's accuracy dropped significantly",
		run: func(ctx context.Context, args []string) error {
			return runCompare(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

func runCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt runreport.CompareOptions
	gate := fs.String("gate", "", `score whose significant drops fail, "metric,filter" (default: the task's first, e.g. exact_match,strict-match)`)
	fs.Float64Var(&opt.Alpha, "alpha", 0.05, "family-wise significance level (Holm over samplers)")
	fs.IntVar(&opt.Bootstrap.Resamples, "resamples", 0, "paired bootstrap resamples (default 10000)")
	fs.Uint64Var(&opt.Bootstrap.Seed, "bootstrap-seed", 0, "seed of the bootstrap's resampling stream")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval compare [flags] RUN_A RUN_B\n\n"+
			"Pairs RUN_B (new) with RUN_A (reference) on their common problems, sampler by\n"+
			"sampler, and prints the paired table. Exits 1 when a sampler's accuracy under\n"+
			"the gate filter dropped with Holm-adjusted McNemar p < alpha: a nightly gate.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: compare takes two run directories", errUsage)
	}
	opt.Gate = reports.ScoreKey(*gate)
	c, err := runreport.Compare(fs.Arg(0), fs.Arg(1), opt)
	if err != nil {
		return err
	}
	if err := c.WriteTable(stdout); err != nil {
		return err
	}
	return c.Err()
}
