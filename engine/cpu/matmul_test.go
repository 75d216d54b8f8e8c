package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// TestMatmulMatchesDot checks the batched matmul (the two-row, six- and
// four-token kernels, the overlapping block of four that ends a batch they do
// not divide, the single-row and single-token remainders) against dot on each
// widened row, bit for bit, with bias and accumulation (which must add each
// value once), on one and two threads, with and without SIMD.
func TestMatmulMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, dt := range []engine.DType{engine.F32, engine.BF16} {
		for _, cols := range []int{33, 64, 576} {
			for _, rows := range []int{3, 40} {
				for _, n := range []int{2, 3, 4, 5, 6, 7, 9, 27, 32} {
					t.Run(fmt.Sprintf("%s/cols=%d/rows=%d/n=%d", dt, cols, rows, n), func(t *testing.T) {
						w, wide := randomMatrix(r, dt, rows, cols)
						x := make([]float32, n*cols)
						for i := range x {
							x[i] = float32(r.NormFloat64())
						}
						bias := make([]float32, rows)
						base := make([]float32, n*rows)
						for i := range bias {
							bias[i] = float32(r.NormFloat64())
						}
						for i := range base {
							base[i] = float32(r.NormFloat64())
						}
						for _, threads := range []int{1, 2} {
							e := &Engine{threads: threads, pool: newPool(threads)}
							defer e.pool.close()
							for range threads {
								e.scratch = append(e.scratch, workerScratch{tile: make([]float32, tileFloats)})
							}
							for _, simd := range []bool{true, false} {
								setSIMD(t, simd)
								// With bias the stores take the general path;
								// without, the block's own (set or add).
								for _, c := range []struct{ bias, accumulate bool }{{true, true}, {false, true}, {false, false}} {
									got := append([]float32(nil), base...)
									var b []float32
									if c.bias {
										b = bias
									}
									e.matmul(got, x, n, w, b, c.accumulate)
									for tok := range n {
										for i := range rows {
											want := dot(wide[i*cols:(i+1)*cols], x[tok*cols:(tok+1)*cols])
											if c.bias {
												want += bias[i]
											}
											if c.accumulate {
												want = base[tok*rows+i] + want
											}
											require.Equal(t, math.Float32bits(want), math.Float32bits(got[tok*rows+i]),
												"threads %d simd %v %+v token %d row %d", threads, simd, c, tok, i)
										}
									}
								}
							}
						}
					})
				}
			}
		}
	}
}
