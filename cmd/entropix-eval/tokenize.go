package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
)

func init() {
	register(command{
		name:    "tokenize",
		summary: "encode text, decode ids, or run a JSONL file through a tokenizer.json",
		examples: []string{
			`entropix-eval tokenize --model HuggingFaceTB/SmolLM2-135M "Janet's ducks lay 16 eggs."`,
			`entropix-eval tokenize --model DIR --decode 1,2,3 --no-special`,
		},
		run: func(ctx context.Context, args []string) error {
			return runTokenize(ctx, args, os.Stdin, os.Stdout)
		},
	})
}

func runTokenize(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	model := fs.String("model", "", "model directory with tokenizer.json, or a tokenizer.json file")
	noSpecial := fs.Bool("no-special", false, "encode without special tokens (no BOS); with --decode, skip special tokens")
	decodeIDs := fs.String("decode", "", "comma-separated ids to decode instead of encoding TEXT")
	jsonlPath := fs.String("jsonl", "", `JSONL file ("-" for stdin) of {"text": ..., "add_special_tokens": bool}; writes {"ids": [...], "decoded": ...} per line`)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval tokenize --model DIR [--no-special] TEXT\n"+
			"       entropix-eval tokenize --model DIR [--no-special] --decode 1,2,3\n"+
			"       entropix-eval tokenize --model DIR --jsonl FILE")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := resolveModelFlag(model); err != nil {
		return err
	}
	modes := 0
	for _, set := range []bool{*decodeIDs != "", *jsonlPath != "", fs.NArg() > 0} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return fmt.Errorf("%w: give exactly one of TEXT, --decode or --jsonl", errUsage)
	}
	var ids []int32
	if *decodeIDs != "" {
		var err error
		if ids, err = parseTokenIDsFlag("decode", *decodeIDs); err != nil {
			return err
		}
	}
	tok, err := tokenizer.Load(*model)
	if err != nil {
		return err
	}
	switch {
	case *decodeIDs != "":
		text, err := tok.Decode(ids, *noSpecial)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, text)
		return err
	case *jsonlPath != "":
		return tokenizeJSONL(ctx, tok, *jsonlPath, !*noSpecial, stdin, stdout)
	}
	if ids, err = tok.Encode(strings.Join(fs.Args(), " "), !*noSpecial); err != nil {
		return err
	}
	return writeJSONLine(stdout, ids)
}

// tokenizeJSONL encodes each line's text and decodes the ids again, so the output
// can be compared with the Rust library's goldens line by line.
func tokenizeJSONL(ctx context.Context, tok *tokenizer.Tokenizer, path string, defaultSpecial bool, stdin io.Reader, stdout io.Writer) error {
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	w := bufio.NewWriter(stdout)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for line := 1; sc.Scan(); line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row struct {
			Text       *string `json:"text"`
			AddSpecial *bool   `json:"add_special_tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if row.Text == nil {
			return fmt.Errorf("%s line %d: missing \"text\"", path, line)
		}
		addSpecial := defaultSpecial
		if row.AddSpecial != nil {
			addSpecial = *row.AddSpecial
		}
		ids, err := tok.Encode(*row.Text, addSpecial)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		decoded, err := tok.Decode(ids, false)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out := struct {
			IDs     []int32 `json:"ids"`
			Decoded string  `json:"decoded"`
		}{ids, decoded}
		if out.IDs == nil {
			out.IDs = []int32{}
		}
		if err := writeJSONLine(w, out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Flush()
}

// writeJSONLine writes v as one JSON line without HTML escaping, so text such as
// "<|eot_id|>" stays readable.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
