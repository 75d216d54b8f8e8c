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
	"github.com/entropix-eval/entropix-eval/reports/history"
)

func init() {
	register(command{
		name:    "history",
		summary: "index nightly run directories into history.parquet and history.html; --gate exits 1 when the latest night dropped significantly",
		examples: []string{
			`entropix-eval history runs/nightly-1127/merged --out runs/history`,
			`entropix-eval history runs/nightly-* --out runs/history --gate`,
		},
		run: func(ctx context.Context, args []string) error {
			return runHistory(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// runHistory returns nil (exit 0), an error with exit code 1 when --gate
// finds a significant drop, and any other error with exit code 2, as compare.
func runHistory(_ context.Context, args []string, stdout, stderr io.Writer) error {
	err := indexHistory(args, stdout, stderr)
	return gateExit(err, history.IsRegression(err))
}

func indexHistory(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the history's directory (history.parquet, history.html)")
	gate := fs.Bool("gate", false, "exit 1 when the latest night of any model × task dropped significantly against the night before (compare's pairing, test and Holm family, the flags below)")
	var opt history.Options
	bindCompareFlags(fs, &opt.Compare, "")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval history [flags] --out DIR RUN_DIR...\n\n"+
			"Adds every run directory (a run, a group's or a sweep matrix's directory) to\n"+
			"DIR/history.parquet (a run indexed again replaces its rows) and rewrites\n"+
			"DIR/history.html over every night indexed so far.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: history needs --out and at least one run directory", errUsage)
	}
	if err := checkCompareFlags(opt.Compare); err != nil {
		return err
	}
	if opt.Compare.HolmFamily == reports.HolmSweep {
		return fmt.Errorf("%w: --holm-family sweep: history compares each model × task's nights by themselves; use task or run", errUsage)
	}
	var runs []string
	for _, d := range fs.Args() {
		found, err := runDirsUnder(d)
		if err != nil {
			return err
		}
		runs = append(runs, found...)
	}
	h, err := history.Update(*out, runs, opt)
	if err != nil {
		return err
	}
	if err := h.WriteHTML(*out, opt.Compare.Alpha, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "history: %d rows, %d series from %d run directories: %s, %s\n", len(h.Rows), len(h.Series), len(runs),
		filepath.Join(*out, history.ParquetFile), filepath.Join(*out, history.HTMLFile))
	for _, n := range h.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	err = h.Gate()
	if err == nil {
		fmt.Fprintln(stdout, "gate: no significant drop of the latest night")
		return nil
	}
	fmt.Fprintf(stdout, "gate: %v\n", err)
	if *gate {
		return err
	}
	return nil
}

// runDirsUnder lists the run directories d stands for: d itself, a sweep
// matrix's cells (sweep.json) or a group's members.
func runDirsUnder(d string) ([]string, error) {
	if isRunDir(d) {
		return []string{d}, nil
	}
	if ix, err := eval.ReadSweepIndex(d); err == nil {
		var out []string
		for _, c := range ix.Cells {
			dirs, err := cellRuns(d, c)
			if err != nil {
				return nil, err
			}
			out = append(out, dirs...)
		}
		return out, nil
	}
	dirs, err := cellRuns(filepath.Dir(d), eval.Cell{Dir: filepath.Base(d)})
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a run directory, nor a sweep's or group's (no %s, %s or run directories in it)", errUsage, d, eval.ManifestFile, eval.SweepIndexFile)
	}
	return dirs, nil
}
