package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
)

// attnShape is one attention workload: a model's heads, and either one prompt
// prefilled in one step (rows at positions 0..n−1, causal) or a decode step of
// batch slots each holding n positions.
type attnShape struct {
	heads, kvHeads, headDim int
	n, batch                int // batch 0: a prefill of n rows in one slot
}

func (s attnShape) String() string {
	kind := "prefill"
	if s.batch > 0 {
		kind = fmt.Sprintf("decode%d", s.batch)
	}
	return fmt.Sprintf("%dx%d/%s/n=%d", s.heads, s.kvHeads, kind, s.n)
}

// attnEngine is an engine holding only what attention reads: the config, a KV
// cache filled with random keys and values, the pool and per-thread scratch.
func attnEngine(s attnShape, threads int, seed uint64) (*Engine, []tokenRow) {
	slots := max(1, s.batch)
	c := engine.Config{Heads: s.heads, KVHeads: s.kvHeads, HeadDim: s.headDim, Layers: 1}
	e := &Engine{cfg: c, threads: threads, pool: newPool(threads),
		cache: newKVCache(1, slots, s.n, s.kvHeads*s.headDim)}
	e.opts.MaxSeqLen = s.n
	for range threads {
		e.scratch = append(e.scratch, workerScratch{scores: make([]float32, s.heads/s.kvHeads*s.n)})
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range e.cache.k[0] {
		e.cache.k[0][i] = float32(r.NormFloat64())
		e.cache.v[0][i] = float32(r.NormFloat64())
	}
	var rows []tokenRow
	if s.batch == 0 {
		for p := range s.n {
			rows = append(rows, tokenRow{slot: 0, pos: p, output: -1})
		}
		rows[len(rows)-1].output = 0
	} else {
		for slot := range s.batch {
			rows = append(rows, tokenRow{slot: slot, pos: s.n - 1, output: slot})
		}
	}
	for range slots {
		e.attnScores = append(e.attnScores, make([]float32, s.heads*s.n))
	}
	return e, rows
}

// BenchmarkAttention measures the attention alone on SmolLM2-135M's heads (9
// query heads over 3 kv heads) for a 512-token prefill and a batch-32 decode over
// 900-token contexts (the gsm8k_cot sweep's), and on stories110M's 12/12 heads
// for a 128-token prefill; head dim 64, 2 threads.
func BenchmarkAttention(b *testing.B) {
	for _, s := range []attnShape{
		{heads: 9, kvHeads: 3, headDim: 64, n: 512},
		{heads: 9, kvHeads: 3, headDim: 64, n: 900, batch: 32},
		{heads: 12, kvHeads: 12, headDim: 64, n: 128},
	} {
		b.Run(s.String(), func(b *testing.B) {
			e, rows := attnEngine(s, 2, 1)
			defer e.pool.close()
			qDim := s.heads * s.headDim
			r := rand.New(rand.NewPCG(2, 3))
			q := make([]float32, len(rows)*qDim)
			for i := range q {
				q[i] = float32(r.NormFloat64() * 0.3)
			}
			out := make([]float32, len(q))
			var scores int
			for _, row := range rows {
				scores += (row.pos + 1) * s.heads
			}
			b.ResetTimer()
			cpu0 := processCPUTime()
			for range b.N {
				e.attention(0, rows, q, out, false)
			}
			reportRate(b, float64(b.N)*float64(scores)/1e6, "Mscores", cpu0)
		})
	}
}

// BenchmarkAttentionKernels runs each step of a SmolLM2 group's attention (3
// query heads over one kv head, head dim 64) alone on n L1/L2-resident positions,
// single-threaded: ns per (position, head) pair is the figure to compare.
func BenchmarkAttentionKernels(b *testing.B) {
	const heads, hd, stride = 3, 64, 192
	for _, n := range []int{64, 512} {
		r := rand.New(rand.NewPCG(4, 5))
		q := make([]float32, heads*hd)
		kv := make([]float32, n*stride)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		for i := range kv {
			kv[i] = float32(r.NormFloat64())
		}
		s := make([]float32, heads*n)
		out := make([]float32, heads*hd)
		perPair := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*heads), "ns/pair")
		}
		b.Run(fmt.Sprintf("scores/n=%d", n), func(b *testing.B) {
			for range b.N {
				groupScores(s, n, q, heads, hd, kv, stride, 0.125)
			}
			perPair(b)
		})
		b.Run(fmt.Sprintf("softmax/n=%d", n), func(b *testing.B) {
			for range b.N {
				groupScores(s, n, q, heads, hd, kv, stride, 0.125) // fresh scores each time
				softmaxRows(s, n, heads)
			}
			perPair(b)
		})
		b.Run(fmt.Sprintf("values/n=%d", n), func(b *testing.B) {
			for range b.N {
				weightedSums(out, s, n, heads, hd, kv, stride)
			}
			perPair(b)
		})
	}
}
