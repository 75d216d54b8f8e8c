package main

import (
	"context"
	"errors"
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
		summary: "paired comparison of two runs of one task; exit 0 no significant drop, 1 significant drop, 2 error",
		examples: []string{
			`entropix-eval compare runs/nightly-0412 runs/nightly-0413`,
			`entropix-eval compare runs/a runs/b --alpha 0.01 --json`,
		},
		run: func(ctx context.Context, args []string) error {
			return runCompare(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// exitError carries a command's exit status to main.
type exitError struct {
	err  error
	code int
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// runCompare returns nil (exit 0) when no sampler dropped significantly, an
// error with exit code 1 when one did, and any other error with exit code 2,
// so a nightly job can tell a regression from a broken comparison.
func runCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	err := compareRuns(args, stdout, stderr)
	var drop *runreport.RegressionError
	return gateExit(err, errors.As(err, &drop))
}

// gateExit gives a gate's error its exit status: none for success or help,
// 1 for a significant drop, 2 for anything else.
func gateExit(err error, dropped bool) error {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return err
	case dropped:
		return &exitError{err: err, code: 1}
	}
	return &exitError{err: err, code: 2}
}

func compareRuns(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt runreport.CompareOptions
	bindCompareFlags(fs, &opt, "sweep (compare two sweep directories: tasks × samplers)")
	asJSON := fs.Bool("json", false, "print the comparison rows as JSON (comparisons.arrow's column names) instead of the table")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval compare [flags] RUN_A RUN_B\n\n"+
			"Pairs RUN_B (new) with RUN_A (reference) on their common problems, sampler by\n"+
			"sampler (--pair first, then by canonical spec, then by label where the spec\n"+
			"changed, said in a note), and prints the paired table. Exit status:\n"+
			"0 no significant drop, 1 a sampler's accuracy under the primary filter dropped\n"+
			"with Holm-adjusted p < alpha, 2 error: a nightly gate. The default test is\n"+
			"two-sided, so a drop is declared at alpha/2 in its tail; --alternative less\n"+
			"tests drops one-sided at alpha. RUN_A and RUN_B may be sweep directories (one\n"+
			"run directory per task): tasks pair by name, and --holm-family sweep makes\n"+
			"one family of all of them.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: compare takes two run directories", errUsage)
	}
	if err := checkCompareFlags(opt); err != nil {
		return err
	}
	c, err := runreport.CompareDirs(fs.Arg(0), fs.Arg(1), opt)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := c.MarshalJSON()
		if err != nil {
			return err
		}
		if _, err := stdout.Write(b); err != nil {
			return err
		}
	} else if err := c.WriteTable(stdout); err != nil {
		return err
	}
	return c.Err()
}

// bindCompareFlags binds the gate's flags, which compare and history share so
// history's gate is compare's: the primary filter, alpha, the test's
// alternative, the Holm family (sweepScope: what its sweep value means here,
// "" where it has none), the resampling budgets and the pairs given by hand.
func bindCompareFlags(fs *flag.FlagSet, opt *runreport.CompareOptions, sweepScope string) {
	fs.StringVar(&opt.PrimaryFilter, "primary-filter", "", "filter whose significant drops fail the gate and whose p-values are Holm-adjusted (default: the sweep's primary_filter, else the task's first filter)")
	fs.Float64Var(&opt.Alpha, "alpha", 0.05, "family-wise significance level of the gate (Holm within --holm-family)")
	fs.StringVar(&opt.Paired.Alternative, "alternative", reports.TwoSided, "the test and interval: two-sided, or less (one-sided for drops: the gate's test at alpha)")
	family := "Holm family: task (samplers on the primary filter) or run (every filter too)"
	if sweepScope != "" {
		family = "Holm family: task (samplers on the primary filter), run (every filter too) or " + sweepScope
	}
	fs.StringVar(&opt.HolmFamily, "holm-family", reports.HolmTask, family)
	fs.IntVar(&opt.Paired.Bootstrap.Resamples, "resamples", 0, "paired bootstrap resamples (default 10000)")
	fs.IntVar(&opt.Paired.Permutations, "permutations", 0, fmt.Sprintf("Monte-Carlo sign flips when the exact test is too costly (default %d)", reports.DefaultPermutations))
	fs.Uint64Var(&opt.Paired.Bootstrap.Seed, "bootstrap-seed", 0, "seed of the bootstrap's and the sign flips' random stream")
	fs.Func("pair", "compare sampler A of the reference run with sampler B of the new one, A=B (repeatable; before pairing by spec, then by label)", func(s string) error {
		opt.Pairs = append(opt.Pairs, s)
		return nil
	})
}

// checkCompareFlags refuses what bindCompareFlags cannot mean.
func checkCompareFlags(opt runreport.CompareOptions) error {
	if err := reports.CheckAlternative(opt.Paired.Alternative); err != nil {
		return fmt.Errorf("%w: --alternative: %w", errUsage, err)
	}
	if opt.Paired.Alternative == reports.Greater {
		return fmt.Errorf("%w: --alternative greater: compare gates drops; use two-sided or less", errUsage)
	}
	if err := reports.CheckHolmScope(opt.HolmFamily); err != nil {
		return fmt.Errorf("%w: --holm-family: %w", errUsage, err)
	}
	return nil
}
