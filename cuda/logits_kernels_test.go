package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// craftedLogitCases are vocabularies, K and row counts of the crafted-rows check: one
// to seven top-K stages, logit_stats_part parts from one to more than a warp's lanes,
// a last chunk with fewer real entries than k.
var craftedLogitCases = []struct{ vocab, k, rows int }{{300, 27, 3}, {5000, 1, 2}, {70000, 1024, 2}, {128256, 27, 1},
	{4100, 1024, 3}, {2049, 1000, 3}}

// The logits statistics and top-K kernels on crafted rows, against sampler/metrics.
func TestLogitKernelsOnCraftedRows(t *testing.T) {
	for i, tc := range craftedLogitCases {
		t.Run(fmt.Sprintf("vocab%d-k%d", tc.vocab, tc.k), func(t *testing.T) {
			checkLogitKernels(t, newTestDevice(t), tc.vocab, tc.k, tc.rows, uint64(i))
		})
	}
}

// checkLogitKernels runs the pipeline's logits statistics and top-K stages on dev over
// rows crafted by their index: coarse values (many ties, which break toward the lower
// id, at the top-K threshold), one value with a logit_stats_part chunk of only -Inf,
// +0 and -0 with a few larger values; -Inf and NaN entries in the first rows.
func checkLogitKernels(tb testing.TB, dev backend, vocab, k, rows int, seed uint64) {
	rng := rand.New(rand.NewPCG(9, seed))
	negZero := float32(math.Copysign(0, -1))
	p := &pipeline{cfg: engine.Config{VocabSize: vocab}, gpuK: k, be: dev}
	logits := make([]float32, rows*vocab)
	for i := range logits {
		switch r, j := i/vocab, i%vocab; {
		case r%3 == 1 && j >= logitStatsChunk && j < 2*logitStatsChunk:
			logits[i] = float32(math.Inf(-1))
		case r%3 == 1:
			logits[i] = 0.75
		case r%3 == 2 && j%97 == 0:
			logits[i] = float32(rng.IntN(4))
		case r%3 == 2:
			logits[i] = []float32{0, negZero}[rng.IntN(2)]
		default:
			logits[i] = float32(math.Round(rng.NormFloat64()*6) / 4) // coarse: many ties
		}
	}
	logits[5] = float32(math.Inf(-1))
	logits[len(logits)-7] = float32(math.NaN())
	scratch := int64(rows * topkScratchEntries(vocab, k) * 4)
	alloc := func(bytes int, what string) dptr {
		d, err := dev.alloc(int64(bytes), what)
		require.NoError(tb, err)
		return d
	}
	p.out.logits = alloc(4*len(logits), "logits")
	p.out.logitStats = alloc(8*3*rows, "logit stats")
	p.out.logitParts = alloc(8*4*rows*logitStatsParts(vocab), "logit stats parts")
	for i := range 2 {
		p.out.topVals[i] = alloc(int(scratch), "top values")
		p.out.topIDs[i] = alloc(int(scratch), "top ids")
	}
	require.NoError(tb, dev.upload(p.out.logits, f32Bytes(logits)))
	require.NoError(tb, p.logitStats(rows))
	require.NoError(tb, p.topK(rows))
	stats := make([]float64, 3*rows)
	require.NoError(tb, dev.download(f64Bytes(stats), p.out.logitStats))
	final := (len(topkStages(vocab, k)) - 1) % 2
	vals, ids := make([]float32, k*rows), make([]int32, k*rows)
	require.NoError(tb, dev.download(f32Bytes(vals), p.out.topVals[final]))
	require.NoError(tb, dev.download(i32Bytes(ids), p.out.topIDs[final]))
	for r := 0; r < rows; r++ {
		row := logits[r*vocab : (r+1)*vocab]
		lz, ent, varent := metrics.LogitStats(row)
		if math.IsNaN(lz) { // a NaN logit poisons the statistics on both sides
			require.True(tb, math.IsNaN(stats[3*r]), "row %d log Z %g", r, stats[3*r])
		} else {
			require.InDelta(tb, lz, stats[3*r], 1e-9*math.Max(1, math.Abs(lz)), "row %d log Z", r)
			require.InDelta(tb, ent, stats[3*r+1], 1e-9*math.Max(1, ent), "row %d entropy", r)
			require.InDelta(tb, varent, stats[3*r+2], 1e-9*math.Max(1, varent), "row %d varentropy", r)
		}
		rank := append([]float32(nil), row...)
		for j, v := range rank {
			if v != v {
				rank[j] = float32(math.Inf(-1)) // the kernel ranks NaN last, as -Inf
			}
		}
		want := metrics.TopK(nil, rank, k)
		for j, c := range want {
			require.Equal(tb, c.ID, ids[r*k+j], "row %d rank %d", r, j)
			require.Equal(tb, math.Float32bits(c.Logit), math.Float32bits(vals[r*k+j]), "row %d rank %d", r, j)
		}
	}
}
