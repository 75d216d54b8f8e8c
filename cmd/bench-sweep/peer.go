package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

// engineCase is one row of the comparison: a decode batch size, or the prefill
// (batch 0).
type engineCase struct {
	name  string
	batch int
}

func (c engineCase) String() string { return c.name }

// comparePeer times our engine and llama.cpp on the same checkpoint, alternating
// (ours, then llama.cpp, per repetition), and prints medians and ratios.
func comparePeer(ctx context.Context, o options, model string) error {
	gguf, err := convertGGUF(ctx, o, model)
	if err != nil {
		return err
	}
	node, err := installPeer(ctx, o)
	if err != nil {
		return err
	}
	m, err := engine.Load(model)
	if err != nil {
		return err
	}
	defer m.Close()
	cases := []engineCase{{"decode batch 1", 1}, {"decode batch 8", 8}, {"decode batch 32", 32}, {fmt.Sprintf("prefill %d tokens", o.prefillN), 0}}
	ours, oursBF16, peer := map[engineCase][]float64{}, map[engineCase][]float64{}, map[engineCase][]float64{}
	for rep := range o.reps {
		for _, c := range cases {
			a, err := oursTokPerSec(ctx, m, o, c, engine.MatmulFP32)
			if err != nil {
				return fmt.Errorf("ours, %s: %w", c, err)
			}
			bf := 0.0
			if o.bf16 {
				if bf, err = oursTokPerSec(ctx, m, o, c, engine.MatmulBF16); err != nil {
					return fmt.Errorf("ours bf16, %s: %w", c, err)
				}
				oursBF16[c] = append(oursBF16[c], bf)
			}
			b, err := peerTokPerSec(ctx, o, node, gguf, c)
			if err != nil {
				return fmt.Errorf("llama.cpp, %s: %w", c, err)
			}
			ours[c], peer[c] = append(ours[c], a), append(peer[c], b)
			fmt.Fprintf(os.Stderr, "rep %d %-18s ours %7.1f  ours bf16 %7.1f  llama.cpp %7.1f tok/s\n", rep+1, c, a, bf, b)
		}
	}
	fmt.Printf("\nengines on the same weights (random SmolLM2-135M BF16, %d threads; ours fp32 KV and compute, ours bf16 with --matmul-precision bf16, llama.cpp as node-llama-cpp configures it), medians of %d alternating runs; load average %s\n",
		o.threads, o.reps, loadAvg())
	header := []string{"case (tok/s)", "ours", "llama.cpp", "ratio"}
	if o.bf16 {
		header = []string{"case (tok/s)", "ours fp32", "ours bf16", "llama.cpp", "fp32 ratio", "bf16 ratio"}
	}
	rows := [][]string{header}
	for _, c := range cases {
		a, b := median(ours[c]), median(peer[c])
		if !o.bf16 {
			rows = append(rows, []string{c.name, tokS(a), tokS(b), ratio(a, b)})
			continue
		}
		bf := median(oursBF16[c])
		rows = append(rows, []string{c.name, tokS(a), tokS(bf), tokS(b), ratio(a, b), ratio(bf, b)})
	}
	fmt.Print(table(rows))
	return nil
}

// table lays rows (rows[0] the header) out as a Markdown table, the case column
// left-aligned and the figures right-aligned.
func table(rows [][]string) string {
	right := make([]bool, len(rows[0]))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	return runreport.AlignedTable(rows, right, true)
}

func tokS(v float64) string     { return fmt.Sprintf("%.1f", v) }
func ratio(a, b float64) string { return fmt.Sprintf("%.2f×", a/b) }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// oursTokPerSec runs one case on the CPU engine the way bench.mjs runs it on
// llama.cpp: B sequences from prompt [1+s] decoding greedily, timed over steps
// 2..n; or one prompt of the same pseudo-random ids, prefilled in one step.
func oursTokPerSec(ctx context.Context, m *engine.Model, o options, c engineCase, prec engine.MatmulPrecision) (float64, error) {
	opts := engine.Options{Slots: max(1, c.batch), MaxSeqLen: o.decodeN + 8, TopK: 64, MetricLayer: -1,
		Threads: o.threads, PrefixCacheBytes: -1, MatmulPrecision: prec}
	if c.batch == 0 {
		opts.MaxSeqLen = o.prefillN + 64
	}
	e, err := cpu.New(m, opts)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	var out []engine.Output
	if c.batch == 0 {
		prompt := peerPrompt(o.prefillN, m.Config.VocabSize)
		if err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: prompt[:8]}}, &out); err != nil { // warm-up, as bench.mjs
			return 0, err
		}
		e.Free(0)
		t := time.Now()
		if err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: prompt}}, &out); err != nil {
			return 0, err
		}
		return float64(len(prompt)) / time.Since(t).Seconds(), nil
	}
	in := make([]engine.Input, c.batch)
	for s := range in {
		in[s] = engine.Input{Slot: s, Tokens: []int32{int32(1 + s)}}
	}
	var t time.Time
	for k := 0; k < o.decodeN; k++ {
		if k == 1 {
			t = time.Now()
		}
		if err := e.Step(ctx, in, &out); err != nil {
			return 0, err
		}
		for s := range in {
			in[s].Tokens[0] = out[s].Dist.Candidates[0].ID
		}
	}
	return float64((o.decodeN-1)*c.batch) / time.Since(t).Seconds(), nil
}

// peerPrompt is bench.mjs's deterministic prompt (a 32-bit LCG, ids 3..vocab−1).
func peerPrompt(n, vocab int) []int32 {
	x := uint32(12345)
	p := make([]int32, n)
	for i := range p {
		x = x*1103515245 + 12345
		p[i] = int32(3 + x%uint32(vocab-3))
	}
	return p
}

func peerTokPerSec(ctx context.Context, o options, node, gguf string, c engineCase) (float64, error) {
	args := []string{"bench.mjs", "decode", gguf, "--threads", strconv.Itoa(o.threads),
		"--batch", strconv.Itoa(c.batch), "--n", strconv.Itoa(o.decodeN)}
	if c.batch == 0 {
		args = []string{"bench.mjs", "prefill", gguf, "--threads", strconv.Itoa(o.threads),
			"--n", strconv.Itoa(o.prefillN), "--reps", "1"}
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = node
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("node %v: %w", args, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var r struct {
			TokS float64 `json:"tok_s"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.TokS > 0 {
			return r.TokS, nil
		}
	}
	return 0, fmt.Errorf("node %v printed no result: %q", args, b)
}

// convertGGUF writes the checkpoint as GGUF once, with ../shared's converter.
func convertGGUF(ctx context.Context, o options, model string) (string, error) {
	out := filepath.Join(o.work, "smollm2-135m-bf16.gguf")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	src, err := filepath.Abs(filepath.Join(o.shared, "bench", "llamacpp", "gguf"))
	if err != nil {
		return "", err
	}
	tmp := out + ".tmp"
	// No -tokenizer: the converter writes SentencePiece vocabularies only, and
	// SmolLM2's is byte-level BPE; its synthetic one times the same (ids, not texts).
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-hf", model, "-o", tmp)
	cmd.Dir, cmd.Stdout, cmd.Stderr = src, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("convert to GGUF with %s: %w", src, err)
	}
	return out, os.Rename(tmp, out)
}

// installPeer copies ../shared's node harness into the work folder (shared is
// read-only) and installs node-llama-cpp from the npm registry once.
func installPeer(ctx context.Context, o options) (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not on PATH: install Node.js (20+) and npm, or pass -no-peer")
	}
	dir := filepath.Join(o.work, "node")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, f := range []string{"package.json", "bench.mjs"} {
		b, err := os.ReadFile(filepath.Join(o.shared, "bench", "llamacpp", "node", f))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "node-llama-cpp")); err == nil {
		return dir, nil
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install node-llama-cpp in %s: %w", dir, err)
	}
	return dir, nil
}
