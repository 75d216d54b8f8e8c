package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// benchModel builds (once per machine, in the user cache dir) a random model with
// SmolLM2-135M's shape in BF16 and loads it.
func benchModel(b *testing.B) *engine.Model {
	b.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = b.TempDir()
	}
	dir := filepath.Join(cache, "entropix-eval", "bench", "smollm2-135m-bf16")
	if _, err := os.Stat(filepath.Join(dir, engine.ConfigFile)); err != nil {
		spec, err := engine.TestModelPreset("smollm2-135m")
		require.NoError(b, err)
		// Build beside and rename, so an interrupted build is never mistaken for a model.
		tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
		require.NoError(b, engine.BuildTestModel(tmp, spec))
		require.NoError(b, os.RemoveAll(dir))
		require.NoError(b, os.Rename(tmp, dir))
	}
	m, err := engine.Load(dir)
	require.NoError(b, err)
	b.Cleanup(func() { _ = m.Close() })
	return m
}

// BenchmarkDecode measures decode throughput: every slot holds 128–512 tokens of
// context and each step appends one token per slot. The context is prefilled once
// and copied into the other slots, since only the decode steps are measured.
func BenchmarkDecode(b *testing.B) {
	m := benchModel(b)
	const ctxStart, maxSeq = 128, 512
	for _, batch := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			e := newEngine(b, m, engine.Options{Slots: batch, MaxSeqLen: maxSeq, TopK: 64, MetricLayer: -1})
			step(b, e, engine.Input{Slot: 0, Tokens: randomIDs(rand.New(rand.NewPCG(1, 2)), ctxStart, m.Config.VocabSize)})
			in := make([]engine.Input, batch)
			for s := range in {
				copySlot(e, 0, s)
				in[s] = engine.Input{Slot: s, Tokens: []int32{int32(s)}}
			}
			var out []engine.Output
			b.ResetTimer()
			cpu0 := processCPUTime()
			for range b.N {
				if e.Len(0) == maxSeq { // back to the start of the context
					for s := range in {
						e.cache.lens[s] = ctxStart
					}
				}
				if err := e.Step(ctx, in, &out); err != nil {
					b.Fatal(err)
				}
				for s := range in {
					in[s].Tokens[0] = out[s].Dist.Candidates[0].ID
				}
			}
			reportTokens(b, b.N*batch, cpu0)
		})
	}
}

// copySlot duplicates a slot's cached sequence into another slot.
func copySlot(e *Engine, from, to int) {
	c := e.cache
	n := c.lens[from]
	for l := range c.k {
		for h := range c.kvHeads {
			copy(c.k[l][c.at(to, h, 0):c.at(to, h, n)], c.k[l][c.at(from, h, 0):c.at(from, h, n)])
			copy(c.v[l][c.at(to, h, 0):c.at(to, h, n)], c.v[l][c.at(from, h, 0):c.at(from, h, n)])
		}
	}
	c.lens[to] = n
}

// BenchmarkPrefill measures one prompt prefilled in one step, at 128 tokens and at
// bench-sweep's 512, in both matmul precisions.
func BenchmarkPrefill(b *testing.B) {
	m := benchModel(b)
	for _, prec := range precisions {
		for _, n := range []int{128, 512} {
			b.Run(fmt.Sprintf("%s/n=%d", prec, n), func(b *testing.B) {
				e := newEngine(b, m, engine.Options{MaxSeqLen: n, TopK: 64, MetricLayer: -1, MatmulPrecision: prec})
				prompt := randomIDs(rand.New(rand.NewPCG(3, 4)), n, m.Config.VocabSize)
				var out []engine.Output
				b.ResetTimer()
				cpu0 := processCPUTime()
				for range b.N {
					e.Free(0)
					if err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: prompt}}, &out); err != nil {
						b.Fatal(err)
					}
				}
				reportTokens(b, b.N*n, cpu0)
			})
		}
	}
}

// reportTokens reports tokens per wall second and per CPU-second (see reportRate).
func reportTokens(b *testing.B, tokens int, cpu0 time.Duration) {
	reportRate(b, float64(tokens), "tokens", cpu0)
}

// reportRate reports amount per wall second and, where the OS tells, per
// CPU-second of this process (all threads): on a shared machine the second one is
// disturbed far less by other load.
func reportRate(b *testing.B, amount float64, unit string, cpu0 time.Duration) {
	b.ReportMetric(amount/b.Elapsed().Seconds(), unit+"/s")
	if cpu := processCPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(amount/cpu.Seconds(), unit+"/cpu-s")
	}
}

// BenchmarkMatmul measures the kernel alone on a SmolLM2 gate_proj (1536×576 BF16)
// for n tokens, single-threaded and on all threads, in both matmul precisions
// (bf16 with BF16 weights: the panels are the same for F32 ones).
func BenchmarkMatmul(b *testing.B) {
	const rows, cols = 1536, 576
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []engine.DType{engine.BF16, engine.F32, bf16Precision} {
		stored := dt
		if dt == bf16Precision {
			stored = engine.BF16
		}
		data := make([]byte, rows*cols*stored.Size())
		for i := 0; i < rows*cols; i++ {
			v := float32(r.NormFloat64() * 0.02)
			if stored == engine.BF16 {
				h := engine.F32ToBF16(v)
				data[2*i], data[2*i+1] = byte(h), byte(h>>8)
			} else {
				putF32(data[4*i:], v)
			}
		}
		w, err := newMatrix(&engine.Tensor{Name: "w", DType: stored, Shape: []int{rows, cols}, Data: data}, rows, cols)
		require.NoError(b, err)
		var bf16 *bf16State
		if dt == bf16Precision {
			bf16 = &bf16State{panels: map[*matrix]*bf16Panels{w: newBF16Panels(w, nil)}}
		}
		for _, threads := range []int{1, 2} {
			for _, n := range []int{1, 8, 32, 256} {
				b.Run(fmt.Sprintf("%s/threads=%d/n=%d", dt, threads, n), func(b *testing.B) {
					e := &Engine{threads: threads, bf16: bf16, pool: newPool(threads)}
					defer e.pool.close()
					for range threads {
						e.scratch = append(e.scratch, workerScratch{tile: make([]float32, tileFloats)})
					}
					x := make([]float32, n*cols)
					for i := range x {
						x[i] = float32(r.NormFloat64())
					}
					out := make([]float32, n*rows)
					b.ResetTimer()
					cpu0 := processCPUTime()
					for range b.N {
						e.matmul(out, x, n, w, nil, false)
					}
					reportRate(b, 2*float64(b.N)*rows*cols*float64(n)/1e9, "GFLOP", cpu0)
				})
			}
		}
	}
}

// bf16Precision names BenchmarkMatmul's BF16-precision case (BF16 weights).
const bf16Precision engine.DType = "BF16-precision"

func putF32(b []byte, v float32) {
	u := math.Float32bits(v)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

// BenchmarkDotKernels compares the dot kernels on L1-resident data.
func BenchmarkDotKernels(b *testing.B) {
	const n = 576
	w16 := make([]uint16, n)
	w32 := make([]float32, n)
	x := make([]float32, n)
	for i := range x {
		w16[i] = 0x3c00 + uint16(i%50)
		w32[i] = bf16(w16[i])
		x[i] = float32(i%13) * 0.01
	}
	var sink float32
	b.Run("f32", func(b *testing.B) {
		for range b.N {
			sink += dot(w32, x)
		}
		b.ReportMetric(2*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("bf16", func(b *testing.B) {
		for range b.N {
			sink += dotBF16(w16, x)
		}
		b.ReportMetric(2*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	// The batched matmul's register blocks: two rows × four tokens (dot2x4)
	// and two rows × six (dot2x6, AVX2 alone).
	for _, tokens := range []int{4, 6} {
		b.Run(fmt.Sprintf("f32x%d", 2*tokens), func(b *testing.B) {
			w2 := make([]float32, 2*n)
			xs := make([]float32, tokens*n)
			for i := range w2 {
				w2[i] = w32[i%n]
			}
			for i := range xs {
				xs[i] = x[i%n]
			}
			var s [12]float32
			b.ResetTimer()
			cpu0 := processCPUTime()
			for range b.N {
				if tokens == 6 {
					dot2x6(w2, n, xs, n, &s)
				} else {
					dot2x4(w2, n, xs, n, (*[8]float32)(s[:8]))
				}
			}
			reportRate(b, float64(4*tokens*n*b.N)/1e9, "GFLOP", cpu0)
		})
	}
	_ = sink
}

// BenchmarkAttachPrefix measures starting a sequence from an 848-token stored
// prefix (an 8-shot GSM8K prompt's size) against computing it (BenchmarkPrefill).
func BenchmarkAttachPrefix(b *testing.B) {
	m := benchModel(b)
	const n = 849
	e := newEngine(b, m, engine.Options{Slots: 2, MaxSeqLen: n + 1, TopK: 64, MetricLayer: -1})
	prompt := randomIDs(rand.New(rand.NewPCG(3, 4)), n, m.Config.VocabSize)
	if _, err := e.AttachPrefix(0, prompt); err != nil {
		b.Fatal(err)
	}
	step(b, e, engine.Input{Slot: 0, Tokens: prompt})
	b.ResetTimer()
	for range b.N {
		e.Free(1)
		if got, err := e.AttachPrefix(1, prompt); err != nil || got != n-1 {
			b.Fatalf("attached %d tokens (%v), want %d", got, err, n-1)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/attach")
}
