package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

func init() {
	register(command{
		name:    "report",
		summary: "write a run directory's report: report.html, summary/comparisons.arrow, figures/, tables/",
		examples: []string{
			`entropix-eval report runs/sweep`,
			`entropix-eval report runs/sweep --baseline "min_p(min_p=0.1,temperature=0.7)" --figure-size two-column`,
		},
		run: func(ctx context.Context, args []string) error {
			return runReport(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

func runReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt runreport.Options
	fs.StringVar(&opt.Baseline, "baseline", "", `sampler the others are compared with (default "greedy" if present, else the first)`)
	fs.StringVar(&opt.PrimaryFilter, "primary-filter", "", "filter whose comparisons are Holm-adjusted and lead the page (default: the sweep's primary_filter, else the task's first filter)")
	fs.StringVar(&opt.HolmFamily, "holm-family", reports.HolmTask, "Holm family: task (samplers on the primary filter), run (every filter too) or sweep (RUN_DIR is a sweep directory: its tasks × samplers, one family)")
	fs.StringVar(&opt.FigureSize, "figure-size", "one-column", "figures' size preset: one-column (3.3 in) or two-column (6.8 in); fonts stay 7–8 pt")
	fs.StringVar(&opt.TableLabel, "table-label", "", `prefix of the LaTeX tables' \label keys: tab:PREFIX-accuracy, tab:PREFIX-paired (default "entropix")`)
	fs.IntVar(&opt.Paired.Bootstrap.Resamples, "resamples", 0, "paired bootstrap resamples (default 10000)")
	fs.IntVar(&opt.Paired.Permutations, "permutations", 0, "Monte-Carlo sign flips when the exact test is too costly (default 200000)")
	fs.Uint64Var(&opt.Paired.Bootstrap.Seed, "bootstrap-seed", 0, "seed of the bootstrap's and the sign flips' random stream")
	fs.BoolVar(&opt.NoParquet, "no-parquet", false, "leave out the Parquet copies of summary.arrow and comparisons.arrow (on by default, and off for runs started with --no-parquet)")
	fs.IntVar(&opt.TokenBudget, "token-budget", 0,
		fmt.Sprintf("generated tokens with per-token detail in report.html (default %d; -1: none)", runreport.DefaultTokenBudget))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval report [flags] RUN_DIR\n\n"+
			"Reads results.arrow and traces.arrow of RUN_DIR and writes summary.arrow,\n"+
			"comparisons.arrow, report.html (offline, self-contained), figures/ (SVG, PDF)\n"+
			"and tables/ (LaTeX booktabs) into it. With --holm-family sweep, RUN_DIR may be\n"+
			"a sweep directory (one run directory per task): every task's report is\n"+
			"written, its primary comparisons Holm-adjusted as one family across tasks.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: report takes one run directory", errUsage)
	}
	dir := fs.Arg(0)
	if err := reports.CheckHolmScope(opt.HolmFamily); err != nil {
		return fmt.Errorf("%w: --holm-family: %w", errUsage, err)
	}
	if opt.HolmFamily == reports.HolmSweep && !runreport.IsRunDir(dir) {
		return writeSweepReport(dir, opt, stdout)
	}
	// The report's files are written under the run directory's lock, so a report
	// never interleaves with a run, merge or another report writing there; the
	// lock comes first, so a run still writing is named as such.
	lock, err := eval.LockRunDir(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, runreport.ResultsFile)); err != nil {
		return fmt.Errorf("report: %s has no results yet (its run has not finished; run the same command again to finish it): %w", dir, err)
	}
	if err := writeReport(dir, opt, stdout); err != nil {
		return err
	}
	// A run stopped while finishing owes the lm-eval files too; then it is complete.
	if m, err := eval.ReadManifest(dir); err == nil && m.Status == eval.StatusFinishing {
		if err := writeLMEvalFiles(dir, stdout); err != nil {
			return err
		}
		return eval.MarkComplete(dir)
	}
	return nil
}

// writeSweepReport writes the report of every task under a sweep directory,
// each under its run directory's lock.
func writeSweepReport(dir string, opt runreport.Options, stdout io.Writer) error {
	start := time.Now()
	lock := func(taskDir string) (func(), error) {
		l, err := eval.LockRunDir(taskDir)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		return l.Unlock, nil
	}
	reps, err := runreport.BuildSweep(dir, opt, lock)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %d tasks under %s, one Holm family (%.1fs)\n", len(reps), dir, time.Since(start).Seconds())
	for _, rep := range reps {
		fmt.Fprintf(stdout, "\n%s: %s\n", rep.Task, filepath.Join(rep.RunDir, runreport.HTMLFile))
		for _, c := range rep.Comparisons {
			if c.Primary {
				fmt.Fprintf(stdout, "%s\n", c.Headline())
			}
		}
	}
	return nil
}

// writeReport builds dir's report and prints where it went; run calls it at the
// end of every run.
func writeReport(dir string, opt runreport.Options, stdout io.Writer) error {
	start := time.Now()
	if m, err := eval.ReadManifest(dir); err == nil && m.Config.NoParquet {
		opt.NoParquet = true // the run was started with --no-parquet
	}
	rep, err := runreport.Build(dir, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %s (%d samplers, %d problems, %.1fs)\n",
		filepath.Join(dir, runreport.HTMLFile), len(rep.Samplers), len(rep.Problems), time.Since(start).Seconds())
	for _, n := range rep.Notes {
		fmt.Fprintf(stdout, "report: note: %s\n", n)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stdout, "report: warning: %s\n", w)
	}
	fmt.Fprintln(stdout)
	if err := runreport.WriteMarkdown(stdout, rep); err != nil {
		return err
	}
	for _, c := range rep.Comparisons {
		if c.Primary {
			fmt.Fprintf(stdout, "%s\n", c.Headline())
		}
	}
	return nil
}
