package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// BenchmarkRunSmolLM2 measures end-to-end problems per second of `run` on the CPU
// backend with a random-weight SmolLM2-135M-shaped checkpoint and the real SmolLM2
// tokenizer, and the share of the workers' time spent outside engine.Step (the
// harness's overhead: scheduling, sampling, decoding text, journaling).
func BenchmarkRunSmolLM2(b *testing.B) {
	spec, err := engine.TestModelPreset("smollm2-135m")
	if err != nil {
		b.Fatal(err)
	}
	tok, err := os.ReadFile(sharedtest.Path(b, "tokenizers/smollm/tokenizer.json"))
	if err != nil {
		b.Fatal(err)
	}
	spec.ExtraFiles = map[string][]byte{"tokenizer.json": tok}
	model := filepath.Join(b.TempDir(), "smollm2-135m")
	if err := engine.BuildTestModel(model, spec); err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			var problems, outside float64
			for i := 0; i < b.N; i++ {
				out := filepath.Join(b.TempDir(), fmt.Sprint(i))
				args := []string{
					"--model", model, "--task", "gsm8k_cot_zeroshot",
					"--dataset", sharedtest.Path(b, "data/gsm8k/sample/test-50.jsonl"),
					"--samplers", "greedy", "--limit", "8", "--max-new-tokens", "32",
					"--batch-size", fmt.Sprint(batch), "--progress", "none", "--out", out,
				}
				if err := runRun(context.Background(), args, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
				m, err := eval.ReadManifest(out)
				if err != nil {
					b.Fatal(err)
				}
				problems += float64(m.Stats.ItemsThisRun)
				outside += m.Stats.OutsideShare
			}
			b.ReportMetric(problems/b.Elapsed().Seconds(), "problems/s")
			b.ReportMetric(100*outside/float64(b.N), "%outside_engine")
		})
	}
}
