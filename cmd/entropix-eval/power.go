package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

func init() {
	register(command{
		name:    "power",
		summary: "plan a paired comparison: how many problems and samples per problem detect a given difference",
		examples: []string{
			`entropix-eval power --baseline-acc 0.35 --delta 0.02 --samples 3`,
			`entropix-eval power --delta 0.02 --samples 3 --tests 4 --run runs/pilot --sampler entropix`,
			`entropix-eval power --baseline-acc 0.35 --delta 0.02 --within-share 0.4 --corr 0.6 --problems 1319`,
		},
		run: func(ctx context.Context, args []string) error {
			return runPower(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// powerFlags are power's options.
type powerFlags struct {
	baselineAcc, delta, alpha, power, withinShare, corr float64
	samples, tests, problems                            int
	alternative, run, sampler, baseline, filter         string
}

func runPower(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("power", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f powerFlags
	fs.Float64Var(&f.baselineAcc, "baseline-acc", -1, "the baseline's accuracy as a fraction (default with --run: the run's)")
	fs.Float64Var(&f.delta, "delta", 0, "the true difference to detect, as a fraction (0.02 = 2 pp; required)")
	fs.IntVar(&f.samples, "samples", 1, "samples per problem on each side (seeds × repeats)")
	fs.IntVar(&f.tests, "tests", 1, "tests in the Holm family; planned at Holm's first step, alpha/tests")
	fs.IntVar(&f.problems, "problems", 0, "problems available (e.g. 1319): also say how many samples per problem they need")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "family-wise significance level")
	fs.Float64Var(&f.power, "power", 0.8, "power to reach")
	fs.StringVar(&f.alternative, "alternative", reports.TwoSided, "two-sided, less or greater")
	fs.Float64Var(&f.withinShare, "within-share", 0, "without --run: share of a sampler's score variance that is within-problem noise (0: outcomes fixed per problem, so samples cannot help)")
	fs.Float64Var(&f.corr, "corr", 0, "without --run: correlation of the two samplers' per-problem rates (0: no pairing benefit)")
	fs.StringVar(&f.run, "run", "", "a pilot run directory: measure the variance components from it (Miller 2024, §5)")
	fs.StringVar(&f.sampler, "sampler", "", "with --run: the sampler (default: the first that is not the baseline)")
	fs.StringVar(&f.baseline, "baseline", "", `with --run: the baseline (default "greedy" if present, else the first sampler)`)
	fs.StringVar(&f.filter, "filter", "", "with --run: the score key (default: the run's primary filter)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval power --delta D [flags]\n\n"+
			"Plans a paired comparison of two samplers: the problems needed to detect a\n"+
			"true difference --delta with --power at --alpha (Holm's first step when\n"+
			"--tests > 1), for 1, 2, 3, 5, 10 and --samples samples per problem, from\n"+
			"Var(d) = ω² + σ²_A/K + σ²_B/K (Miller 2024, §5; normal approximation).\n"+
			"Without --run the components come from the accuracies and the conservative\n"+
			"--within-share and --corr; with --run they are measured. A report's MDE is\n"+
			"the other direction: what one finished run could detect.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: power takes no arguments (got %q)", errUsage, fs.Args())
	}
	if f.samples < 1 || f.problems < 0 {
		return fmt.Errorf("%w: --samples %d, --problems %d: want ≥ 1 and ≥ 0", errUsage, f.samples, f.problems)
	}
	plan := reports.PowerPlan{Delta: f.delta, Alpha: f.alpha, Power: f.power, Tests: f.tests, Alternative: f.alternative}
	if err := plan.Check(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	source, err := f.variance(&plan)
	if err != nil {
		return err
	}
	return writePlan(stdout, plan, f, source)
}

// variance fills plan.Variance from a run or from the flags' assumptions and
// says where it came from.
func (f powerFlags) variance(plan *reports.PowerPlan) (string, error) {
	if f.run != "" {
		p, err := runreport.LoadPair(f.run, f.sampler, f.baseline, f.filter)
		if err != nil {
			return "", err
		}
		if plan.Variance, err = reports.MeasureVariance(p.A, p.B); err != nil {
			return "", err
		}
		return fmt.Sprintf("measured on %s: %s against %s under %s. %s", f.run, p.Sampler, p.Baseline, p.Filter, plan.Variance.Note), nil
	}
	if f.baselineAcc < 0 {
		return "", fmt.Errorf("%w: --baseline-acc is required without --run", errUsage)
	}
	var err error
	plan.Variance, err = reports.AssumedVariance(max(0, min(1, f.baselineAcc+f.delta)), f.baselineAcc, f.withinShare, f.corr)
	if err != nil {
		return "", fmt.Errorf("%w: --baseline-acc, --within-share, --corr: %w", errUsage, err)
	}
	return fmt.Sprintf("assumed from the accuracies %.1f%% and %.1f%% with --within-share %g and --corr %g (0 and 0 are the conservative ends; --run measures them).",
		100*f.baselineAcc, 100*max(0, min(1, f.baselineAcc+f.delta)), f.withinShare, f.corr), nil
}

func writePlan(w io.Writer, plan reports.PowerPlan, f powerFlags, source string) error {
	level := plan.Alpha / float64(plan.Tests)
	fmt.Fprintf(w, "to detect Δ = %s pp with %.0f%% power, %s, at α = %g", reports.SignedPP(plan.Delta), 100*plan.Power, plan.Alternative, plan.Alpha)
	if plan.Tests > 1 {
		fmt.Fprintf(w, " over a Holm family of %d (first step α/%d = %.4g)", plan.Tests, plan.Tests, level)
	}
	v := plan.Variance
	fmt.Fprintf(w, "\nVar(d) = ω² + σ²_A/K + σ²_B/K with ω² = %.4f, σ²_A = %.4f, σ²_B = %.4f: %s\n\n", v.Omega2, v.WithinA, v.WithinB, source)
	fmt.Fprintln(w, "samples per problem   problems needed")
	ks := []int{1, 2, 3, 5, 10}
	if !slices.Contains(ks, f.samples) {
		ks = append(ks, f.samples)
		slices.Sort(ks)
	}
	for _, k := range ks {
		mark := ""
		if k == f.samples {
			mark = "  ← --samples"
		}
		fmt.Fprintf(w, "%19d   %15d%s\n", k, plan.ProblemsNeeded(k, k), mark)
	}
	if f.problems > 0 {
		switch k := plan.SamplesNeeded(f.problems); k {
		case 0:
			fmt.Fprintf(w, "\nwith %d problems no number of samples is enough: the between-problem variance ω² alone needs %d problems.\n",
				f.problems, plan.ProblemsNeeded(1<<30, 1<<30))
		default:
			fmt.Fprintf(w, "\nwith %d problems: %d samples per problem on each side.\n", f.problems, k)
		}
	}
	_, err := fmt.Fprintln(w, "\nA plan, not a result: the sign-flip test at small n is slightly conservative, and the run's own sensitivity (MDE in its report) is what it could detect.")
	return err
}
