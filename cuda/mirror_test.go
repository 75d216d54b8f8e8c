package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// These tests run Go transliterations of the kernels' algorithms (same passes, same
// loop structure, same tie rules) against the sampler/metrics reference. They check
// the algorithms on the CPU; the GPU tests check the CUDA code itself.

// mirrorAttnStats follows attn_head_stats then the agreement kernels in attnstats.cu from
// already-scaled scores (heads × kvLen): raw = head entropies, agreement, interaction
// strength.
func mirrorAttnStats(scores []float32, heads, kvLen int, padded bool, padLen int) []float64 {
	raw := make([]float64, heads+2)
	hs := make([]float64, 3*heads)
	for h := 0; h < heads; h++ {
		raw[h], hs[3*h], hs[3*h+1], hs[3*h+2] = mirrorHeadStats(scores[h*kvLen:(h+1)*kvLen], padded, padLen)
	}
	raw[heads], raw[heads+1] = mirrorAgreement(scores, heads, kvLen, hs, padded, padLen)
	return raw
}

// emptySlots is the number of padded-mode slots past a row of kvLen keys.
func emptySlots(kvLen int, padded bool, padLen int) int {
	if padded {
		return padLen - kvLen
	}
	return 0
}

// mirrorHeadStats follows attn_head_stats for one head's scores: its entropy, max,
// partition function and sum of |score|.
func mirrorHeadStats(row []float32, padded bool, padLen int) (ent, m, z, absSum float64) {
	nEmpty := emptySlots(len(row), padded, padLen)
	mx := float32(math.Inf(-1))
	if nEmpty > 0 {
		mx = 0
	}
	for _, s := range row {
		mx = max(mx, s)
		absSum += math.Abs(float64(s))
	}
	m = float64(mx)
	for _, s := range row {
		z += math.Exp(float64(s) - m)
	}
	if nEmpty > 0 {
		z += float64(nEmpty) * math.Exp(-m)
	}
	for _, s := range row {
		p := math.Exp(float64(s)-m) / z
		ent -= p * math.Log2(math.Max(p, 1e-10))
	}
	if nEmpty > 0 {
		e := math.Exp(-m) / z
		ent -= float64(nEmpty) * e * math.Log2(math.Max(e, 1e-10))
	}
	return ent, m, z, absSum
}

// mirrorAgreement follows attn_agreement over one chunk holding every key, then
// attn_agreement_finish: agreement and interaction strength from the scores and each
// head's (max, partition function, sum of |score|) in hs.
func mirrorAgreement(scores []float32, heads, kvLen int, hs []float64, padded bool, padLen int) (agreement, interaction float64) {
	part := mirrorAgreementPart(scores, heads, kvLen, hs, func(int) bool { return true })
	return mirrorAgreementFinish([]float64{part}, hs, heads, kvLen, padded, padLen)
}

// mirrorAgreementPart follows one attn_agreement block: the sum of |p_h(j) − mean_h
// p_h(j)| over the keys j that in(j) keeps.
func mirrorAgreementPart(scores []float32, heads, kvLen int, hs []float64, in func(j int) bool) float64 {
	var agree float64
	for j := 0; j < kvLen; j++ {
		if !in(j) {
			continue
		}
		var mean float64
		for h := 0; h < heads; h++ {
			mean += math.Exp(float64(scores[h*kvLen+j])-hs[3*h]) / hs[3*h+1]
		}
		mean /= float64(heads)
		for h := 0; h < heads; h++ {
			agree += math.Abs(math.Exp(float64(scores[h*kvLen+j])-hs[3*h])/hs[3*h+1] - mean)
		}
	}
	return agree
}

// mirrorAgreementFinish follows attn_agreement_finish.
func mirrorAgreementFinish(parts, hs []float64, heads, kvLen int, padded bool, padLen int) (agreement, interaction float64) {
	nEmpty := emptySlots(kvLen, padded, padLen)
	var agree, absSum float64
	for _, p := range parts {
		agree += p
	}
	for h := 0; h < heads; h++ {
		absSum += hs[3*h+2]
	}
	if nEmpty > 0 {
		var mean, col float64
		for h := 0; h < heads; h++ {
			mean += math.Exp(-hs[3*h]) / hs[3*h+1]
		}
		mean /= float64(heads)
		for h := 0; h < heads; h++ {
			col += math.Abs(math.Exp(-hs[3*h])/hs[3*h+1] - mean)
		}
		agree += float64(nEmpty) * col
	}
	cells := float64(heads * (kvLen + nEmpty))
	return agree / cells, absSum / cells
}

func TestAttnStatsMirrorMatchesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		heads, kvLen int
		padded       bool
		padLen       int
		scale        float64
	}{
		{1, 1, false, 0, 1}, {8, 33, false, 0, 1}, {32, 512, false, 0, 3}, {3, 7, true, 4096, 1},
		{32, 100, true, 4096, 0.01}, {4, 64, true, 64, 2}, {9, 20, true, 2048, 30},
	} {
		scores := make([]float32, tc.heads*tc.kvLen)
		for i := range scores {
			scores[i] = float32(rng.NormFloat64() * tc.scale)
		}
		mode := metrics.Masked
		if tc.padded {
			mode = metrics.Padded
		}
		var want metrics.AttnStats
		require.NoError(t, want.Compute(scores, tc.heads, tc.kvLen, mode, tc.padLen))
		var got metrics.AttnStats
		finishAttnStats(&got, mirrorAttnStats(scores, tc.heads, tc.kvLen, tc.padded, tc.padLen), tc.heads, tc.kvLen, want.View)
		require.Equal(t, want.Slots, got.Slots)
		require.Equal(t, want.View, got.View)
		require.InDeltaSlice(t, want.HeadEntropy, got.HeadEntropy, 1e-9)
		for _, f := range [][2]float64{{want.Entropy, got.Entropy}, {want.Varentropy, got.Varentropy},
			{want.Agreement, got.Agreement}, {want.InteractionStrength, got.InteractionStrength}} {
			require.InDelta(t, f[0], f[1], 1e-9, "%+v", tc)
		}
		if tc.heads > 1 {
			require.InDelta(t, want.VarentropyDDOF1, got.VarentropyDDOF1, 1e-9)
		} else {
			require.True(t, math.IsNaN(got.VarentropyDDOF1))
		}
	}
}

type ranked struct {
	v  float32
	id int32
}

// before is the kernel's order: higher logit first, ties by lower id.
func before(a, b ranked) bool { return a.v > b.v || (a.v == b.v && a.id < b.id) }

// mirrorTopKChunk is one block of topk_chunks: bitonic sort of a padded chunk, best k.
func mirrorTopKChunk(in []ranked, chunk, k int) []ranked {
	s := make([]ranked, chunk)
	for i := range s {
		if i < len(in) {
			s[i] = in[i]
			if s[i].v != s[i].v {
				s[i].v = float32(math.Inf(-1))
			}
		} else {
			s[i] = ranked{float32(math.Inf(-1)), math.MaxInt32}
		}
	}
	for size := 2; size <= chunk; size <<= 1 {
		for stride := size >> 1; stride > 0; stride >>= 1 {
			for i := 0; i < chunk; i++ {
				p := i ^ stride
				if p <= i {
					continue
				}
				up := i&size == 0
				if (up && before(s[p], s[i])) || (!up && before(s[i], s[p])) {
					s[i], s[p] = s[p], s[i]
				}
			}
		}
	}
	return s[:k]
}

// mirrorTopK runs the stages the engine plans for one row.
func mirrorTopK(logits []float32, k, chunk int) []ranked {
	cur := make([]ranked, len(logits))
	for i, v := range logits {
		cur[i] = ranked{v, int32(i)}
	}
	for _, st := range topkStagesChunk(len(logits), k, chunk) {
		var next []ranked
		for c := 0; c < st.Chunks; c++ {
			next = append(next, mirrorTopKChunk(cur[c*chunk:min((c+1)*chunk, st.N)], chunk, k)...)
		}
		cur = next
	}
	return cur
}

func TestTopKMirrorMatchesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, k, chunk int }{
		{512, 27, 2048}, {1024, 32, 64}, {128256, 27, topkChunk}, {5000, 1, 16}, {300, 32, 64}, {300, 299, topkChunk},
		{2048, 1024, topkChunk}, {49152, 1024, topkChunk}, {7, 2, 4},
	} {
		logits := make([]float32, tc.n)
		for i := range logits {
			// Coarse values make many ties, which must break toward the lower id.
			logits[i] = float32(math.Round(rng.NormFloat64()*8) / 4)
		}
		logits[tc.n/2] = float32(math.Inf(-1))
		got := mirrorTopK(logits, tc.k, tc.chunk)
		want := metrics.TopK(nil, logits, tc.k)
		require.Len(t, got, tc.k, "%+v", tc)
		for i := range want {
			require.Equal(t, want[i].ID, got[i].id, "%+v rank %d", tc, i)
			require.Equal(t, want[i].Logit, got[i].v)
		}
	}
}

// mirrorAttention follows attention_cached for one query head: warps take 32-key
// chunks in turn with an online softmax, then merge. It returns softmax(s)·v.
func mirrorAttention(scores []float32, v [][]float32, warps int) []float32 {
	dim := len(v[0])
	type state struct {
		m, l float32
		acc  []float32
	}
	st := make([]state, warps)
	for w := range st {
		st[w] = state{m: float32(math.Inf(-1)), acc: make([]float32, dim)}
		for j0 := w * 32; j0 < len(scores); j0 += warps * 32 {
			cnt := min(32, len(scores)-j0)
			cmax := float32(math.Inf(-1))
			for j := j0; j < j0+cnt; j++ {
				cmax = max(cmax, scores[j])
			}
			mNew := max(st[w].m, cmax)
			corr := float32(math.Exp(float64(st[w].m - mNew)))
			var sum float32
			p := make([]float32, cnt)
			for jj := range p {
				p[jj] = float32(math.Exp(float64(scores[j0+jj] - mNew)))
				sum += p[jj]
			}
			st[w].l = st[w].l*corr + sum
			for d := range st[w].acc {
				st[w].acc[d] *= corr
				for jj := range p {
					st[w].acc[d] += p[jj] * v[j0+jj][d]
				}
			}
			st[w].m = mNew
		}
	}
	out := make([]float32, dim)
	mx := float32(math.Inf(-1))
	for _, s := range st {
		mx = max(mx, s.m)
	}
	for d := range out {
		var L, o float32
		for _, s := range st {
			f := float32(math.Exp(float64(s.m - mx)))
			L += s.l * f
			o += s.acc[d] * f
		}
		out[d] = o / L
	}
	return out
}

func TestAttentionMirrorMatchesSoftmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ keys, dim, warps int }{{1, 8, 1}, {1, 8, 16}, {33, 16, 2}, {512, 64, 16}, {700, 64, 4}, {95, 8, 16}} {
		scores := make([]float32, tc.keys)
		v := make([][]float32, tc.keys)
		for j := range scores {
			scores[j] = float32(rng.NormFloat64() * 4)
			v[j] = make([]float32, tc.dim)
			for d := range v[j] {
				v[j][d] = float32(rng.NormFloat64())
			}
		}
		got := mirrorAttention(scores, v, tc.warps)
		mx := math.Inf(-1)
		for _, s := range scores {
			mx = math.Max(mx, float64(s))
		}
		var z float64
		for _, s := range scores {
			z += math.Exp(float64(s) - mx)
		}
		for d := 0; d < tc.dim; d++ {
			var want float64
			for j, s := range scores {
				want += math.Exp(float64(s)-mx) / z * float64(v[j][d])
			}
			require.InDelta(t, want, got[d], 1e-5, "%+v dim %d", tc, d)
		}
	}
}
