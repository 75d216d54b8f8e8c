package main

import (
	"flag"

	"github.com/entropix-eval/entropix-eval/engine"
)

// matmulPrecisionUsage is the --matmul-precision help, the same on every command.
const matmulPrecisionUsage = "weight-matmul precision: fp32 (default; the reference numbers) or bf16 " +
	"(activations rounded to bfloat16, products accumulated in float32 as llama.cpp and PyTorch " +
	"do for BF16 models: faster, different numbers; fast with AVX512_BF16, AVX2 + FMA or arm64 NEON; CPU backend only)"

// addMatmulPrecisionFlag binds --matmul-precision to p, checking the value.
func addMatmulPrecisionFlag(fs *flag.FlagSet, p *engine.MatmulPrecision) {
	fs.Func("matmul-precision", matmulPrecisionUsage, func(s string) error {
		v, err := engine.ParseMatmulPrecision(s)
		*p = v
		return err
	})
}
