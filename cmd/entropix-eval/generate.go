package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
)

func init() {
	register(command{
		name:    "generate",
		summary: "greedy-decode from token ids and print the new ids (and their text) as JSON",
		examples: []string{
			`entropix-eval generate --model models/stories260K/stories260K.bin --ids 1 --max-new-tokens 30`,
		},
		run: func(ctx context.Context, args []string) error {
			return runGenerate(ctx, args, os.Stdout)
		},
	})
}

// generateResult is generate's output.
type generateResult struct {
	// IDs are the generated tokens (the prompt excluded), ending with the EOS id
	// when one stopped generation.
	IDs []int32 `json:"ids"`
	// Text is IDs decoded with the checkpoint's tokenizer.json, special tokens
	// skipped; absent when the checkpoint has no tokenizer.json (a pointer, so
	// an empty decode is still printed as "").
	Text *string `json:"text,omitempty"`
}

func runGenerate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	model := fs.String("model", "", "checkpoint: Hugging Face directory or llama2.c .bin (required)")
	idList := fs.String("ids", "", "prompt token ids, e.g. 1,2,3 (required; no BOS is added)")
	maxTokens := fs.Int("max-new-tokens", 32, "generation budget: the most tokens to generate")
	ignoreEOS := fs.Bool("ignore-eos", false, "keep generating past the model's EOS ids")
	threads := fs.Int("threads", 0, "CPU threads (0: all of the machine's cores)")
	var precision engine.MatmulPrecision
	addMatmulPrecisionFlag(fs, &precision)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval generate --model DIR|FILE.bin|ORG/NAME --ids 1,2,3 [flags]\n\n"+
			"Greedy-decodes from the token ids (no BOS added) on the CPU backend and prints\n"+
			"the new ids, and their text when the checkpoint has a tokenizer.json, as JSON.")
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
	if *maxTokens < 0 {
		return fmt.Errorf("%w: --max-new-tokens %d is negative", errUsage, *maxTokens)
	}

	m, err := engine.Load(*model)
	if err != nil {
		return err
	}
	defer m.Close()
	eng, err := cpu.New(m, engine.Options{
		Slots: 1, MaxSeqLen: len(ids) + *maxTokens, TopK: 1, MetricLayer: -1, Threads: *threads, MatmulPrecision: precision,
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	eos := m.Config.EOS
	if *ignoreEOS {
		eos = nil
	}
	gen, err := greedyDecode(ctx, eng, ids, *maxTokens, eos)
	if err != nil {
		return err
	}
	res := generateResult{IDs: gen}
	if m.TokenizerPath != "" {
		text, err := decodeGenerated(m.TokenizerPath, gen)
		if err != nil {
			return err
		}
		res.Text = &text
	}
	return writeJSONResult(stdout, res)
}

// decodeGenerated decodes ids with the tokenizer.json at path, skipping special
// tokens (BOS, EOS, chat markers) as Hugging Face's skip_special_tokens does.
func decodeGenerated(path string, ids []int32) (string, error) {
	tok, err := tokenizer.Load(path)
	if err != nil {
		return "", fmt.Errorf("decode the generated ids: %w", err)
	}
	text, err := tok.Decode(ids, true)
	if err != nil {
		return "", fmt.Errorf("decode the generated ids with %s: %w", path, err)
	}
	return text, nil
}
