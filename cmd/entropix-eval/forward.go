package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

func init() {
	register(command{
		name:    "forward",
		summary: "run token ids through a model and print the last position's metrics as JSON",
		examples: []string{
			`entropix-eval forward --model HuggingFaceTB/SmolLM2-135M --ids 1,2,3 --candidates 5`,
		},
		run: func(ctx context.Context, args []string) error {
			return runForward(ctx, args, os.Stdout)
		},
	})
}

// forwardResult is forward's output; the field names are a published interface.
type forwardResult struct {
	Top          []forwardCandidate `json:"top"`
	LogPartition float64            `json:"log_partition"`
	Entropy      float64            `json:"entropy"`
	Varentropy   float64            `json:"varentropy"`
	Attn         forwardAttn        `json:"attn"`
}

type forwardCandidate struct {
	ID    int32   `json:"id"`
	Logit float32 `json:"logit"`
}

type forwardAttn struct {
	HeadEntropy         []float64 `json:"head_entropy"`
	Entropy             float64   `json:"entropy"`
	Varentropy          float64   `json:"varentropy"`
	Agreement           float64   `json:"agreement"`
	InteractionStrength float64   `json:"interaction_strength"`
}

func runForward(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("forward", flag.ContinueOnError)
	model := fs.String("model", "", "checkpoint: Hugging Face directory or llama2.c .bin (required)")
	idList := fs.String("ids", "", "prompt token ids, e.g. 1,2,3 (required; no BOS is added)")
	mode := fs.String("attn-mode", "masked", "attention statistics over real positions (masked) or a padded cache (padded)")
	padLen := fs.Int("pad-len", 4096, "cache size assumed by --attn-mode padded")
	top := fs.Int("candidates", 10, "top-K candidates to print (the engine's top-K, as run's --candidates)")
	threads := fs.Int("threads", 0, "CPU threads (0: all of the machine's cores)")
	var precision engine.MatmulPrecision
	addMatmulPrecisionFlag(fs, &precision)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval forward --model DIR|FILE.bin|ORG/NAME --ids 1,2,3 [flags]\n\n"+
			"Runs the token ids (no BOS added) through the model on the CPU backend and prints\n"+
			"the last position's top candidates and Entropix metrics as JSON.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := resolveModelFlag(model); err != nil {
		return err
	}
	ids, err := parseTokenIDsFlag("ids", *idList)
	if err != nil {
		return err
	}
	attnMode, err := metrics.ParseAttnMode(*mode)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *top <= 0 {
		return fmt.Errorf("%w: --candidates %d must be positive", errUsage, *top)
	}

	m, err := engine.Load(*model)
	if err != nil {
		return err
	}
	defer m.Close()
	eng, err := cpu.New(m, engine.Options{
		Slots: 1, MaxSeqLen: len(ids), TopK: *top, AttnMode: attnMode, PadLen: *padLen,
		MetricLayer: -1, Threads: *threads, MatmulPrecision: precision,
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	var out []engine.Output
	if err := eng.Step(ctx, []engine.Input{{Slot: 0, Tokens: ids}}, &out); err != nil {
		return err
	}
	d, a := &out[0].Dist, &out[0].Attn
	res := forwardResult{
		Top:          make([]forwardCandidate, len(d.Candidates)),
		LogPartition: d.LogPartition, Entropy: d.Entropy, Varentropy: d.Varentropy,
		Attn: forwardAttn{
			HeadEntropy: a.HeadEntropy, Entropy: a.Entropy, Varentropy: a.Varentropy,
			Agreement: a.Agreement, InteractionStrength: a.InteractionStrength,
		},
	}
	for i, c := range d.Candidates {
		res.Top[i] = forwardCandidate{ID: c.ID, Logit: c.Logit}
	}
	return writeJSONResult(stdout, res)
}
