package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/backends"
	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
	"github.com/entropix-eval/entropix-eval/sampler"
)

func init() {
	register(command{
		name:    "demo",
		summary: "the embedded default job: greedy vs min-p vs Entropix on built-in grade-school problems",
		examples: []string{
			`entropix-eval demo`,
			`entropix-eval demo --model HuggingFaceTB/SmolLM2-360M-Instruct --limit 4`,
		},
		run: func(ctx context.Context, args []string) error {
			return runDemo(ctx, args, os.Stdout)
		},
	})
}

// Generation budgets: a random model's answers are noise, so a short one keeps
// the demo to seconds; a real model gets lm-eval's GSM8K budget.
const (
	demoRandomMaxNew = 32
	demoRealMaxNew   = eval.DefaultMaxNewTokens
	demoTask         = "gsm8k_cot_zeroshot"
)

type demoFlags struct {
	model, out, cacheDir, progress string
	random                         bool
	maxNew, limit, clarifyingID    int
}

func parseDemoFlags(args []string) (demoFlags, error) {
	var f demoFlags
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.StringVar(&f.model, "model", "", "Hugging Face model directory (default: a small instruct model from the Hugging Face cache, else a random test model)")
	fs.BoolVar(&f.random, "random", false, "use the random test model even when the Hugging Face cache has a real one")
	fs.StringVar(&f.out, "out", "", "run directory (default runs/demo-<time>)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where the random test model is kept (default: entropix-eval/models in the user cache dir, "+userCacheHint()+")")
	fs.IntVar(&f.maxNew, "max-new-tokens", 0, fmt.Sprintf("generation budget (default %d for the random model, %d for a real one)", demoRandomMaxNew, demoRealMaxNew))
	fs.IntVar(&f.limit, "limit", 0, "evaluate only the first N of the built-in problems")
	fs.IntVar(&f.clarifyingID, "clarifying-token-id", -1, `Entropix's clarifying token id (default: the tokenizer's " ...", else "..." or a newline)`)
	fs.StringVar(&f.progress, "progress", "auto", "auto, bars, log or none")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval demo [flags]\n\n"+
			"Runs the real evaluation pipeline (as 'entropix-eval run' does) on built-in\n"+
			"grade-school problems with greedy, min-p and Entropix, writes a run directory\n"+
			"and its report.html, and prints the accuracy table. Nothing is downloaded.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, err
		}
		return f, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%w: demo takes no arguments, got %q", errUsage, fs.Args())
	}
	if f.maxNew < 0 || f.limit < 0 {
		return f, fmt.Errorf("%w: --max-new-tokens and --limit must not be negative", errUsage)
	}
	return f, nil
}

func runDemo(ctx context.Context, args []string, stdout io.Writer) error {
	f, err := parseDemoFlags(args)
	if err != nil {
		return err
	}
	choice, err := pickDemoModel(f.model, f.random, engine.HFCacheDirs(), f.cacheDir)
	if err != nil {
		return err
	}
	plan, err := planDemo(f, choice)
	if err != nil {
		return err
	}
	if err := printDemoHeader(stdout, plan); err != nil {
		return err
	}

	// The same wiring and runner as 'entropix-eval run': the demo is a sweep.
	runner, cleanup, err := eval.Open(ctx, plan.cfg, backends.Builtin, eval.Sizing{})
	if err != nil {
		return err
	}
	defer cleanup()
	if err := useProgress(runner, f.progress); err != nil {
		return err
	}
	_, err = runner.Run(ctx)
	if err != nil {
		return err
	}
	out := plan.cfg.Out
	fmt.Fprintln(stdout)
	if err := printDemoSamples(stdout, out); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := writeReport(out, runreport.Options{}, stdout); err != nil {
		return fmt.Errorf("the run in %s is complete, but its report failed: %w", out, err)
	}
	return printDemoFooter(stdout, plan)
}

// demoPlan is the demo's sweep and what its header says about it.
type demoPlan struct {
	cfg    eval.Config
	choice demoModelChoice
	// samplers describe cfg.Samplers, one line each.
	samplers []string
	// notes are things the user must be told (a substituted clarifying token...).
	notes []string
}

// planDemo builds the demo's sweep for the chosen model: the embedded problems
// (written into the run directory, so the run reads and checksums a data file
// like any other), the task prompted through the model's chat template when it
// has one, and the three samplers.
func planDemo(f demoFlags, choice demoModelChoice) (demoPlan, error) {
	plan := demoPlan{choice: choice}
	tok, err := demoTokenizer(choice.Dir)
	if err != nil {
		return demoPlan{}, err
	}
	chat := false
	switch _, err := tok.ChatTemplate(); {
	case err == nil:
		chat = true
	case !errors.Is(err, tokenizer.ErrNoChatTemplate):
		plan.notes = append(plan.notes, fmt.Sprintf("the model's chat template cannot be used here (%v); prompts are plain text", err))
	}
	entropix, clarifying, note, err := demoEntropixSpec(tok, f.clarifyingID)
	if err != nil {
		return demoPlan{}, err
	}
	if note != "" {
		plan.notes = append(plan.notes, note)
	}

	out := f.out
	if out == "" {
		out = newDemoRunDir("runs", time.Now())
	}
	if err := eval.ClaimDir(out); err != nil {
		return demoPlan{}, err
	}
	data, err := datasets.WriteDemo(out)
	if err != nil {
		return demoPlan{}, err
	}
	maxNew := f.maxNew
	if maxNew == 0 {
		maxNew = demoRealMaxNew
		if choice.Random {
			maxNew = demoRandomMaxNew
		}
	}
	// min_p gets a short label: its parameters are in the header, and the long
	// default label would break the summary table's columns.
	cfg := eval.Config{
		Name: "demo", Model: choice.Dir, Backend: "cpu",
		Task: demoTask, Dataset: data, ChatTemplate: chat, Limit: f.limit, MaxNewTokens: maxNew,
		Samplers: []sampler.Spec{
			{Name: "greedy"},
			{Name: "min_p", Label: "min_p", Params: map[string]any{"temperature": 1.0, "min_p": 0.1}},
			entropix,
		},
		Seeds: []uint64{0}, Repeats: 1, Out: out,
	}.WithDefaults()
	if choice.Random {
		cfg.MaxSeqLen = 512 // the test preset's max_position_embeddings
	}
	if err := cfg.Validate(); err != nil {
		return demoPlan{}, fmt.Errorf("%w: demo sweep:\n%w", errUsage, err)
	}
	plan.cfg = cfg
	plan.samplers = []string{
		"greedy",
		"min_p    (temperature 1.0, min_p 0.1)",
		"entropix (" + clarifying + ")",
	}
	return plan, nil
}

// newDemoRunDir names a fresh run directory under parent: demo-<time>, with a
// -2, -3... suffix when an earlier demo took that second, because a run
// directory holding another run is refused (and --out resumes on purpose).
func newDemoRunDir(parent string, now time.Time) string {
	base := filepath.Join(parent, "demo-"+now.Format("20060102-150405"))
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// demoTokenizer loads the model directory's tokenizer.json, which the demo needs
// to build prompts and read answers.
func demoTokenizer(dir string) (*tokenizer.Tokenizer, error) {
	path := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("model %s: the demo needs a Hugging Face directory with tokenizer.json: %w", dir, err)
	}
	return tokenizer.Load(path)
}

// demoEntropixSpec is Entropix with a clarifying token this tokenizer has: the
// id given, else its usual " ..." (the default spec), else the first look-alike
// that is one token here, which the returned note names. desc says which token
// it is, for the header.
func demoEntropixSpec(tok *tokenizer.Tokenizer, givenID int) (spec sampler.Spec, desc, note string, err error) {
	withID := func(id int32) sampler.Spec {
		// The label stays "entropix" so tables read the same whatever the token.
		return sampler.Spec{Name: "entropix", Label: "entropix", Params: map[string]any{"clarifying_token_id": float64(id)}}
	}
	if givenID >= 0 {
		if givenID >= tok.VocabSize() {
			return spec, "", "", fmt.Errorf("%w: --clarifying-token-id %d is outside the vocabulary of %d", errUsage, givenID, tok.VocabSize())
		}
		text, _ := tok.Decode([]int32{int32(givenID)}, false)
		return withID(int32(givenID)), fmt.Sprintf("clarifying token %q = id %d, as given", text, givenID), "", nil
	}
	lookup := eval.TokenTextLookup(tok)
	for i, text := range eval.ClarifyingLookalikes {
		id, ok := lookup(text)
		if !ok {
			continue
		}
		desc = fmt.Sprintf("clarifying token %q = id %d", text, id)
		if i == 0 {
			return sampler.Spec{Name: "entropix"}, desc, "", nil
		}
		note = fmt.Sprintf("this tokenizer has no %q token; Entropix inserts %q (id %d) as its clarifying token instead",
			eval.ClarifyingLookalikes[0], text, id)
		return withID(id), desc, note, nil
	}
	return spec, "", "", fmt.Errorf("%w: this tokenizer has none of %q as one token; pass --clarifying-token-id", errUsage, eval.ClarifyingLookalikes)
}
