package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/entropix-eval/entropix-eval/engine"
)

// compareLlama2c times single-sequence greedy decoding on a random fp32 llama2.c
// .bin with stories110M's shape, ours and llama2.c's run.c (a runomp the user
// built, see ../shared/bench/llamacpp/README.md) alternately, and prints medians
// and the ratio. Both start from token 1 (run.c's BOS for an empty prompt) and
// time steps 2..n, as run.c's "achieved tok/s" does.
func compareLlama2c(ctx context.Context, o options) error {
	runomp, err := filepath.Abs(o.llama2c)
	if err != nil {
		return err
	}
	tokenizer := filepath.Join(filepath.Dir(runomp), "tokenizer.bin")
	if _, err := os.Stat(tokenizer); err != nil {
		return fmt.Errorf("-llama2c %s: run.c needs a tokenizer.bin beside it (llama2.c's own, or any 32000-entry one): %w", o.llama2c, err)
	}
	bin, err := buildLlama2cBin(ctx, o)
	if err != nil {
		return err
	}
	m, err := engine.Load(bin)
	if err != nil {
		return err
	}
	defer m.Close()
	c := engineCase{"decode batch 1", 1}
	var ours, peer []float64
	for rep := range o.reps {
		a, err := oursTokPerSec(ctx, m, o, c, engine.MatmulFP32)
		if err != nil {
			return fmt.Errorf("ours on %s: %w", bin, err)
		}
		b, err := runompTokPerSec(ctx, o, runomp, tokenizer, bin)
		if err != nil {
			return err
		}
		ours, peer = append(ours, a), append(peer, b)
		fmt.Fprintf(os.Stderr, "rep %d %-18s ours %7.1f  llama2.c %7.1f tok/s\n", rep+1, c, a, b)
	}
	fmt.Printf("\nstories110M-shaped fp32 .bin (random weights, %d threads, %d tokens), medians of %d alternating runs; load average %s\n",
		o.threads, o.decodeN, o.reps, loadAvg())
	a, b := median(ours), median(peer)
	fmt.Print(table([][]string{{"case (tok/s)", "ours", "llama2.c", "ratio"}, {c.name, tokS(a), tokS(b), ratio(a, b)}}))
	return nil
}

var achieved = regexp.MustCompile(`achieved tok/s: ([0-9.]+)`)

// runompTokPerSec runs `OMP_NUM_THREADS=T runomp X.bin -t 0 -n N -i "" -z
// tokenizer.bin` and reads the rate run.c prints. run.c stops early if greedy
// decoding meets token 1; its rate is still over the steps it ran.
func runompTokPerSec(ctx context.Context, o options, runomp, tokenizer, bin string) (float64, error) {
	args := []string{bin, "-t", "0", "-n", strconv.Itoa(o.decodeN), "-i", "", "-z", tokenizer}
	cmd := exec.CommandContext(ctx, runomp, args...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+strconv.Itoa(o.threads))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("llama2.c %s %q: %w: %s", runomp, args, err, stderr.Bytes())
	}
	m := achieved.FindSubmatch(stderr.Bytes())
	if m == nil {
		return 0, fmt.Errorf("llama2.c %s printed no \"achieved tok/s\": %q", runomp, stderr.Bytes())
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// buildLlama2cBin writes the random stories110M-shaped .bin once, with
// ../shared's mkbin (beside, then renamed).
func buildLlama2cBin(ctx context.Context, o options) (string, error) {
	out := filepath.Join(o.work, "stories110m-shaped.bin")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	src, err := filepath.Abs(filepath.Join(o.shared, "bench", "llamacpp", "mkbin"))
	if err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-o", tmp)
	cmd.Dir, cmd.Stdout, cmd.Stderr = src, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("write the llama2.c .bin with %s: %w", src, err)
	}
	return out, os.Rename(tmp, out)
}
