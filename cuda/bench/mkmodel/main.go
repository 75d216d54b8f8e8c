// Command mkmodel writes a random-weight checkpoint of a named engine test preset
// (e.g. llama-3.2-1b, BF16) for the CUDA benchmarks and their Hugging Face peer.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/entropix-eval/entropix-eval/engine"
)

func main() {
	preset := flag.String("preset", "llama-3.2-1b", "engine test model preset")
	out := flag.String("out", "", "checkpoint directory to write")
	seed := flag.Uint64("seed", 1, "weight seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkmodel: -out is required")
		os.Exit(2)
	}
	spec, err := engine.TestModelPreset(*preset)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
	spec.Seed = *seed
	if err := engine.BuildTestModel(*out, spec); err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
	fmt.Println(*out)
}
