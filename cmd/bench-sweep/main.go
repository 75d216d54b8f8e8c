// Command bench-sweep times the nightly evaluation sweep on this machine and puts
// the CPU engine beside llama.cpp on the very same weights, in one command
// (`make bench-sweep`):
//
//   - the sweep: gsm8k_cot (8-shot) on a random-weight SmolLM2-135M (BF16) with the
//     real SmolLM2 tokenizer, 3 samplers × 3 seeds over N problems, run in this
//     process through package eval as entropix-eval run runs it (or, with -bin,
//     by another build's binary): problems/s, generated tok/s, prefill tokens computed
//     against requested, the share of time outside the engine, and the projected
//     time of the full 1319-problem sweep;
//   - the peer table: decode at batch 1/8/32 and a 512-token prefill, ours and
//     llama.cpp (npm node-llama-cpp, through ../shared/bench/llamacpp) run
//     alternately, medians and ratios (BF16 precision only where the CPU has
//     AVX512_BF16, AVX2 + FMA or arm64 NEON);
//   - first, the CPU model, its ISA level and the kernels our engine runs on it;
//   - with -llama2c RUNOMP, batch-1 decode on a stories110M-shaped fp32 .bin,
//     ours and llama2.c's run.c alternately (the user builds run.c; nothing of
//     llama2.c is in this repository).
//
// The model, its GGUF conversion and the node packages are built once into the
// user cache directory. Other load on the machine moves every figure: the load
// average is printed beside them.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine/cpu"
)

type options struct {
	bin, shared, work   string
	problems, batch     int
	threads, maxNew     int
	samplers, seeds     string
	noCacheToo, noPeer  bool
	peerOnly, sweepOnly bool
	reps, decodeN       int
	prefillN            int
	llama2c             string
	bf16                bool // also time our engine with --matmul-precision bf16
}

func main() {
	log.SetFlags(0)
	var o options
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	shared := os.Getenv("ENTROPIX_SHARED")
	if shared == "" {
		shared = "../shared"
	}
	flag.StringVar(&o.bin, "bin", "", "run the sweep with this entropix-eval binary (another build, to time beside this one) instead of in this process")
	flag.StringVar(&o.shared, "shared", shared, "the shared data folder (default $ENTROPIX_SHARED or ../shared)")
	flag.StringVar(&o.work, "work", filepath.Join(cache, "entropix-eval", "bench-sweep"), "where the model, GGUF, node packages and runs go")
	flag.IntVar(&o.problems, "n", 24, "GSM8K test problems in the sweep")
	flag.IntVar(&o.batch, "batch", 32, "sequences per engine step")
	flag.IntVar(&o.threads, "threads", 2, "CPU threads, ours and llama.cpp's")
	flag.IntVar(&o.maxNew, "max-new-tokens", 0, "generation budget (0: the task's, 256)")
	flag.StringVar(&o.samplers, "samplers", "greedy,min_p,entropix", "the sweep's samplers")
	flag.StringVar(&o.seeds, "seeds", "0,1,2", "the sweep's seeds")
	flag.BoolVar(&o.noCacheToo, "no-cache-too", false, "also run the sweep with --no-prefix-cache (the time before prefix sharing)")
	flag.BoolVar(&o.noPeer, "no-peer", false, "skip the llama.cpp comparison")
	flag.BoolVar(&o.peerOnly, "peer-only", false, "only the engine comparison, no sweep")
	flag.IntVar(&o.reps, "reps", 3, "alternating repetitions of each engine case (medians are printed)")
	flag.IntVar(&o.decodeN, "decode-n", 128, "tokens per sequence in the decode cases")
	flag.IntVar(&o.prefillN, "prefill-n", 512, "prompt tokens in the prefill case")
	flag.StringVar(&o.llama2c, "llama2c", "", "a llama2.c runomp you built (tokenizer.bin beside it): also time batch-1 decode on a stories110M-shaped fp32 .bin, ours and it")
	flag.BoolVar(&o.bf16, "bf16", false, "also time ours in BF16 matmul precision (--matmul-precision bf16): a third sweep and a row per engine case, beside fp32")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("bench-sweep: unexpected arguments %q", flag.Args())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		log.Fatalf("bench-sweep: %v", err)
	}
}

func run(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	model, err := buildModel(o)
	if err != nil {
		return err
	}
	printMachine()
	if _, fast := cpu.Kernels(); o.bf16 && !fast {
		// The Go emulation would take hours and time nothing a user would run.
		fmt.Println("BF16 matmul precision skipped: no fast BF16 kernel here: neither AVX512_BF16, AVX2 + FMA nor arm64 NEON (fp32 only)")
		o.bf16 = false
	}
	if !o.peerOnly {
		sw, err := runSweep(ctx, o, model, withPrefixCache)
		if err != nil {
			return err
		}
		sw.print(o)
		if o.noCacheToo {
			before, err := runSweep(ctx, o, model, noPrefixCache)
			if err != nil {
				return err
			}
			before.print(o)
			fmt.Printf("prefix sharing: full sweep %.2f h → %.2f h (%.2f× faster)\n",
				before.projected()/3600, sw.projected()/3600, before.projected()/sw.projected())
		}
		if o.bf16 {
			fast, err := runSweep(ctx, o, model, bf16Precision)
			if err != nil {
				return err
			}
			fast.print(o)
			fmt.Printf("BF16 matmul precision: full sweep %.2f h → %.2f h (%.2f× faster)\n",
				sw.projected()/3600, fast.projected()/3600, sw.projected()/fast.projected())
		}
	}
	if !o.noPeer {
		if err := comparePeer(ctx, o, model); err != nil {
			return err
		}
	}
	if o.llama2c != "" {
		return compareLlama2c(ctx, o)
	}
	return nil
}

// buildModel writes the random SmolLM2-135M checkpoint with the SmolLM2 tokenizer
// once (beside, then renamed, so a half-built model is never used).
func buildModel(o options) (string, error) {
	dir := filepath.Join(o.work, "smollm2-135m-bf16")
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil {
		return dir, nil
	}
	tok, err := os.ReadFile(filepath.Join(o.shared, "tokenizers", "smollm", "tokenizer.json"))
	if err != nil {
		return "", fmt.Errorf("the SmolLM2 tokenizer (set -shared or ENTROPIX_SHARED): %w", err)
	}
	log.Printf("building the random SmolLM2-135M checkpoint in %s", dir)
	tmp := fmt.Sprintf("%s.tmp%d", dir, os.Getpid())
	if err := buildTestModel(tmp, tok); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.Rename(tmp, dir)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
