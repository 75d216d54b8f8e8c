package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

func init() {
	register(command{
		name:    "rescore",
		summary: "re-extract and re-score a run directory's saved responses (no model)",
		examples: []string{
			`entropix-eval rescore runs/sweep`,
		},
		run: func(ctx context.Context, args []string) error {
			return runRescore(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

func runRescore(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rescore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	py := regradeFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval rescore RUN_DIR\n\n"+
			"Rebuilds results.arrow, traces.arrow, results.json and samples.jsonl from the\n"+
			"journal with the current extraction and scoring code.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: rescore takes one run directory", errUsage)
	}
	dir := fs.Arg(0)
	// The report and lm-eval files are built from the rescored files, so they are
	// rebuilt with them rather than left stale.
	out := eval.DefaultOutputs()
	stopPython, err := pythonGrading(py, &out)
	if err != nil {
		return err
	}
	defer stopPython()
	out.Report = reportTo(stdout)
	before, after, err := eval.Rescore(dir, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rescored %s\n%s", dir, rescoreTable(before, after))
	return nil
}

// rescoreTable lists each run's score before and after rescoring, runs
// sorted, "n/a" where the run had no score before.
func rescoreTable(before, after map[string]float64) string {
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := [][]string{{"run", "before", "after"}}
	for _, k := range keys {
		old := "n/a"
		if v, ok := before[k]; ok {
			old = pct(v)
		}
		rows = append(rows, []string{k, old, pct(after[k])})
	}
	return runreport.AlignedTable(rows, []bool{false, true, true}, false)
}
