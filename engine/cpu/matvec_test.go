package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// TestMatvecMatchesDot checks the single-token matmul (the even/odd AVX-512
// kernel for BF16 where the CPU has it) against dot on each widened row, bit for
// bit, for every dtype, with bias and accumulation, on one and two threads, for
// row counts around its task size and lengths around the lane count.
func TestMatvecMatchesDot(t *testing.T) {
	t.Logf("SIMD kernels: AVX2 %v, AVX-512 %v", useSIMD, useAVX512)
	r := rand.New(rand.NewPCG(21, 22))
	for _, dt := range []engine.DType{engine.F32, engine.BF16, engine.F16} {
		for _, cols := range []int{1, 31, 32, 33, 64, 95, 576, 1537} {
			for _, rows := range []int{1, 4, 17, 40} {
				t.Run(fmt.Sprintf("%s/cols=%d/rows=%d", dt, cols, rows), func(t *testing.T) {
					w, wide := randomMatrix(r, dt, rows, cols)
					x := make([]float32, cols)
					for i := range x {
						x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
					}
					bias := make([]float32, rows)
					base := make([]float32, rows)
					for i := range bias {
						bias[i], base[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
					}
					for _, threads := range []int{1, 2} {
						e := &Engine{threads: threads, pool: newPool(threads)}
						defer e.pool.close()
						for _, simd := range []bool{true, false} {
							setSIMD(t, simd)
							got := append([]float32(nil), base...)
							e.matvec(got, x, w, bias, true)
							for i := range got {
								want := base[i] + (dot(wide[i*cols:(i+1)*cols], x) + bias[i])
								require.Equal(t, math.Float32bits(want), math.Float32bits(got[i]), "threads %d simd %v row %d", threads, simd, i)
							}
							e.matvec(got, x, w, nil, false)
							for i := range got {
								want := dot(wide[i*cols:(i+1)*cols], x)
								require.Equal(t, math.Float32bits(want), math.Float32bits(got[i]), "threads %d simd %v row %d", threads, simd, i)
							}
						}
					}
				})
			}
		}
	}
}

// TestMatvecsMatchesDot checks several single-token matmuls run as one section
// (q/k/v, gate/up): every row of every job is dot on its widened row, bit for
// bit, whichever thread and whichever job's tiles it shares a task block with.
// Row counts straddle the task size so that job boundaries fall inside and
// between the two threads' blocks.
func TestMatvecsMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	const cols = 128 // with 260+ rows, over matvecs's threshold for a second thread
	for _, dt := range []engine.DType{engine.F32, engine.BF16} {
		for _, shape := range [][]int{{40}, {1, 1}, {17, 5, 33}, {16, 16, 16}, {64, 48, 200}, {3, 500}, {200, 64, 1, 100}} {
			t.Run(fmt.Sprintf("%s/rows=%v", dt, shape), func(t *testing.T) {
				x := make([]float32, cols)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				var jobs []matmulJob
				var wides [][]float32
				for k, rows := range shape {
					w, wide := randomMatrix(r, dt, rows, cols)
					j := matmulJob{out: make([]float32, rows), w: w, accumulate: k%2 == 1}
					if k == 0 {
						j.bias = make([]float32, rows)
						for i := range j.bias {
							j.bias[i] = float32(r.NormFloat64())
						}
					}
					for i := range j.out {
						j.out[i] = float32(r.NormFloat64())
					}
					jobs, wides = append(jobs, j), append(wides, wide)
				}
				for _, threads := range []int{1, 2} {
					e := &Engine{threads: threads, pool: newPool(threads)}
					defer e.pool.close()
					run := make([]matmulJob, len(jobs))
					for k, j := range jobs {
						run[k] = j
						run[k].out = append([]float32(nil), j.out...)
					}
					e.matvecs(x, run...)
					for k, j := range jobs {
						for i, base := range j.out {
							want := dot(wides[k][i*cols:(i+1)*cols], x)
							if j.bias != nil {
								want += j.bias[i]
							}
							if j.accumulate {
								want = base + want
							}
							require.Equal(t, math.Float32bits(want), math.Float32bits(run[k].out[i]), "threads %d job %d row %d", threads, k, i)
						}
					}
				}
			})
		}
	}
}

// randomMatrix draws a rows × cols matrix of dtype dt and its values widened to
// float32 (the reference dot runs on those).
func randomMatrix(r *rand.Rand, dt engine.DType, rows, cols int) (*matrix, []float32) {
	m := &matrix{name: "w", rows: rows, cols: cols, dtype: dt}
	wide := make([]float32, rows*cols)
	switch dt {
	case engine.F32:
		m.f32 = make([]float32, rows*cols)
		for i := range m.f32 {
			m.f32[i] = float32(r.NormFloat64())
		}
		copy(wide, m.f32)
	case engine.BF16:
		m.u16 = make([]uint16, rows*cols)
		for i := range m.u16 {
			m.u16[i] = engine.F32ToBF16(float32(r.NormFloat64() * 0.05))
			wide[i] = bf16(m.u16[i])
		}
	default:
		m.u16 = make([]uint16, rows*cols)
		for i := range m.u16 {
			m.u16[i] = randF16(r)
			wide[i] = engine.F16ToF32(m.u16[i])
		}
	}
	return m, wide
}

// BenchmarkMatvec measures the single-token matmul on SmolLM2-135M's lm_head
// (49152×576, 54 MiB in BF16), larger than the last-level cache, so the weights
// stream from memory as in a batch-1 decode step. It reports the weight bytes read
// per second.
func BenchmarkMatvec(b *testing.B) {
	const rows, cols = 49152, 576
	r := rand.New(rand.NewPCG(23, 24))
	for _, dt := range []engine.DType{engine.BF16, engine.F32} {
		w, _ := randomMatrix(r, dt, rows, cols)
		x := make([]float32, cols)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		out := make([]float32, rows)
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", dt, threads), func(b *testing.B) {
				e := &Engine{threads: threads, pool: newPool(threads)}
				defer e.pool.close()
				b.ResetTimer()
				cpu0 := processCPUTime()
				for range b.N {
					e.matmul(out, x, 1, w, nil, false)
				}
				reportRate(b, float64(b.N)*rows*cols*float64(dt.Size())/1e9, "GB", cpu0)
			})
		}
	}
}
