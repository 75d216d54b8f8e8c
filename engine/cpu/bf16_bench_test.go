package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
)

// BenchmarkMatmulBF16 measures the BF16-precision matmul (activation rounding and
// packing included) on a SmolLM2 gate_proj (1536×576) and down_proj (576×1536),
// beside BenchmarkMatmul's fp32 kernels on the same shape.
func BenchmarkMatmulBF16(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []struct{ rows, cols int }{{1536, 576}, {576, 1536}} {
		rows, cols := shape.rows, shape.cols
		wb := make([]uint16, rows*cols)
		for i := range wb {
			wb[i] = engine.F32ToBF16(float32(r.NormFloat64() * 0.02))
		}
		p := newBF16Panels(&matrix{rows: rows, cols: cols, dtype: engine.BF16, u16: wb})
		for _, threads := range []int{1, 2} {
			for _, n := range []int{1, 12, 32, 256, 512} {
				b.Run(fmt.Sprintf("%dx%d/threads=%d/n=%d", rows, cols, threads, n), func(b *testing.B) {
					e := &Engine{threads: threads, bf16: &bf16State{}}
					x := make([]float32, n*cols)
					for i := range x {
						x[i] = float32(r.NormFloat64())
					}
					out := make([]float32, n*rows)
					b.ResetTimer()
					cpu0 := processCPUTime()
					for range b.N {
						e.matmulBF16(out, x, n, p, nil, false)
					}
					reportRate(b, 2*float64(b.N)*float64(rows*cols*n)/1e9, "GFLOP", cpu0)
				})
			}
		}
	}
}
