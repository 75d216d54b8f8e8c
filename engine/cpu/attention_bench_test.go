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
	layers                  int // 0 is 1
}

func (s attnShape) String() string {
	kind := "prefill"
	if s.batch > 0 {
		kind = fmt.Sprintf("decode%d", s.batch)
	}
	name := fmt.Sprintf("%dx%d/%s/n=%d", s.heads, s.kvHeads, kind, s.n)
	if s.layers > 1 {
		name += fmt.Sprintf("/layers=%d", s.layers)
	}
	return name
}

// attnEngine is an engine holding only what attention reads: the config, a KV
// cache filled with random keys and values, the pool and per-thread scratch.
func attnEngine(s attnShape, threads int, seed uint64) (*Engine, []tokenRow) {
	slots := max(1, s.batch)
	layers := max(1, s.layers)
	c := engine.Config{Heads: s.heads, KVHeads: s.kvHeads, HeadDim: s.headDim, Layers: layers}
	e := &Engine{cfg: c, threads: threads, pool: newPool(threads),
		cache: newKVCache(layers, slots, s.n, s.kvHeads, s.headDim)}
	e.opts.MaxSeqLen = s.n
	for range threads {
		e.scratch = append(e.scratch, workerScratch{scores: make([]float32, s.heads/s.kvHeads*s.n)})
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range e.cache.k[0] {
		e.cache.k[0][i] = float32(r.NormFloat64())
		e.cache.v[0][i] = float32(r.NormFloat64())
	}
	for l := 1; l < layers; l++ { // the first layer's values, rotated: fast to fill
		copy(e.cache.k[l], e.cache.k[0][l:])
		copy(e.cache.v[l], e.cache.v[0][l:])
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
// 900-token contexts (the gsm8k_cot sweep's: in one layer, whose 44 MB of keys
// and values largely fit the 32 MB L3, and over 8 layers, 350 MB, which stream
// from memory as the sweep's 30 layers do), and on stories110M's 12/12 heads for
// a 128-token prefill; head dim 64, 2 threads.
func BenchmarkAttention(b *testing.B) {
	for _, s := range []attnShape{
		{heads: 9, kvHeads: 3, headDim: 64, n: 512},
		{heads: 9, kvHeads: 3, headDim: 64, n: 900, batch: 32},
		{heads: 9, kvHeads: 3, headDim: 64, n: 900, batch: 32, layers: 8},
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
				for l := range max(1, s.layers) {
					e.attention(l, rows, q, out, false)
				}
			}
			reportRate(b, float64(b.N*max(1, s.layers))*float64(scores)/1e6, "Mscores", cpu0)
		})
	}
}
