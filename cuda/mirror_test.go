package cuda

import (
	"math"
	"math/rand/v2"
	"slices"
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

// bestOfChunk is what one block of a top-K stage must write: the chunk padded to
// chunk entries with (-Inf, MaxInt32), NaN as -Inf, sorted best first, its best k.
func bestOfChunk(in []ranked, chunk, k int) []ranked {
	s := padChunk(in, chunk)
	slices.SortStableFunc(s, func(a, b ranked) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	return s[:k]
}

// padChunk is a stage's view of a chunk: NaN ranks as -Inf, and entries past the row
// are (-Inf, MaxInt32).
func padChunk(in []ranked, chunk int) []ranked {
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
	return s
}

// rankKey is topk_select's rank_key: an unsigned key in the logits' order, one key
// for -0 and +0.
func rankKey(v float32) uint32 {
	if v == 0 {
		v = 0
	}
	u := math.Float32bits(v)
	if u&0x80000000 != 0 {
		return ^u
	}
	return u | 0x80000000
}

// mirrorTopKSelect is one block of topk_select with block threads: thread t holds
// entries t, t+block, … of the padded chunk; the k-th best key T bit by bit, the id
// bound C where more entries equal T than are needed, the chosen entries gathered in
// thread order, then sorted (the kernel's bitonic sort of the chosen k; any correct
// sort of distinct entries gives the same order).
func mirrorTopKSelect(in []ranked, block, k int) []ranked {
	chunk := topkPerThread * block
	s := padChunk(in, chunk)
	at := func(t, j int) ranked { return s[j*block+t] }
	count := func(f func(e ranked) bool) int {
		n := 0
		for _, e := range s {
			if f(e) {
				n++
			}
		}
		return n
	}
	var T uint32
	for b := 31; b >= 0; b-- {
		c := T | 1<<b
		if count(func(e ranked) bool { return rankKey(e.v) >= c }) >= k {
			T = c
		}
	}
	above := count(func(e ranked) bool { return rankKey(e.v) > T })
	eq := count(func(e ranked) bool { return rankKey(e.v) == T })
	need := k - above
	C := uint32(math.MaxInt32)
	if eq > need {
		C = 0
		for b := 30; b >= 0; b-- {
			c := C | 1<<b
			if count(func(e ranked) bool { return rankKey(e.v) == T && uint32(e.id) < c }) < need {
				C = c
			}
		}
	}
	isA := func(e ranked) bool { return rankKey(e.v) > T || (rankKey(e.v) == T && uint32(e.id) < C) }
	isB := func(e ranked) bool { return rankKey(e.v) == T && uint32(e.id) == C }
	a := count(isA)
	var chosen, tied []ranked
	for t := 0; t < block; t++ {
		for j := 0; j < topkPerThread; j++ {
			if e := at(t, j); isA(e) {
				chosen = append(chosen, e)
			} else if isB(e) {
				tied = append(tied, e)
			}
		}
	}
	chosen = append(chosen, tied[:k-a]...)
	return bestOfChunk(chosen, len(chosen), k)
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
			next = append(next, mirrorTopKSelect(cur[c*chunk:min((c+1)*chunk, st.N)], chunk/topkPerThread, k)...)
		}
		cur = next
	}
	return cur
}

func TestTopKMirrorMatchesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, k, chunk int }{
		{512, 27, 2048}, {1024, 32, 64}, {128256, 27, topkChunk}, {5000, 1, 16}, {300, 32, 64}, {300, 299, topkChunk},
		{2048, 1024, topkChunk}, {49152, 1024, topkChunk}, {70, 4, 8},
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

// topk_select's chunk against a sort of the whole chunk, on chunks built to hit
// every branch: all entries equal (the id bound over padding and real ids), -0 beside
// +0, NaN and -Inf beside padding, fewer real entries than k, ids out of position
// order (a later stage), and coarse random values with many ties at the threshold.
func TestTopKSelectMirrorMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	inf := float32(math.Inf(-1))
	gen := map[string]func(i int) float32{
		"equal":   func(int) float32 { return 1.5 },
		"zeros":   func(i int) float32 { return []float32{0, float32(math.Copysign(0, -1))}[i%2] },
		"nan-inf": func(i int) float32 { return []float32{inf, float32(math.NaN()), -1, inf}[i%4] },
		"coarse":  func(int) float32 { return float32(math.Round(rng.NormFloat64()*4) / 4) },
		"spread":  func(int) float32 { return float32(rng.NormFloat64() * 1e3) },
	}
	for name, f := range gen {
		for _, block := range []int{32, 256} {
			chunk := topkPerThread * block
			for _, n := range []int{chunk, chunk - 1, chunk / 3, 5} {
				for _, k := range []int{1, 2, 27, 32, 33, chunk / 2} {
					for _, shuffled := range []bool{false, true} {
						in := make([]ranked, n)
						for i := range in {
							in[i] = ranked{f(i), int32(i)}
						}
						if shuffled {
							perm := rng.Perm(4 * n)
							for i := range in {
								in[i].id = int32(perm[i])
							}
						}
						got, want := mirrorTopKSelect(in, block, k), bestOfChunk(in, chunk, k)
						require.Len(t, got, k)
						for i := range want {
							require.Equal(t, want[i].id, got[i].id, "%s block %d n %d k %d shuffled %v rank %d", name, block, n, k, shuffled, i)
							require.Equal(t, math.Float32bits(want[i].v), math.Float32bits(got[i].v), "%s rank %d", name, i)
						}
					}
				}
			}
		}
	}
}

// mirrorLogitStatsPart follows logit_stats_part over one chunk: its max (NaN ignored,
// as fmaxf), z, mean of x − max and centred M2 over the entries that are not -Inf.
func mirrorLogitStatsPart(chunk []float32) [4]float64 {
	mx := float32(math.Inf(-1))
	for _, x := range chunk {
		if x > mx { // fmaxf: a NaN never wins
			mx = x
		}
	}
	m := float64(mx)
	var z, es float64
	for _, x := range chunk {
		if math.IsInf(float64(x), -1) {
			continue
		}
		s := float64(x) - m
		e := math.Exp(s)
		z += e
		es += e * s
	}
	mean := es / z
	var v float64
	for _, x := range chunk {
		if math.IsInf(float64(x), -1) {
			continue
		}
		s := float64(x) - m
		v += math.Exp(s) * (s - mean) * (s - mean)
	}
	return [4]float64{m, z, mean, v}
}

// warpSum is the kernels' xor-butterfly sum over 32 lanes (warp_sum_d).
func warpSum(lanes [32]float64) float64 {
	for o := 16; o > 0; o >>= 1 {
		var next [32]float64
		for i := range lanes {
			next[i] = lanes[i] + lanes[i^o]
		}
		lanes = next
	}
	return lanes[0]
}

// mirrorLogitStatsFinish follows logit_stats_finish: lane l combines parts l, l+32, …
// in order, the lanes' sums meet in the butterfly.
func mirrorLogitStatsFinish(parts [][4]float64) (logZ, entropyBits, varentropyBits2 float64) {
	m := math.Inf(-1)
	for _, p := range parts {
		if p[0] > m { // fmax: a NaN never wins
			m = p[0]
		}
	}
	var z, s1 [32]float64
	for b, p := range parts {
		if p[1] == 0 {
			continue
		}
		f := math.Exp(p[0] - m)
		w := p[1] * f
		z[b%32] += w
		s1[b%32] += w * (p[0] - m + p[2])
	}
	zt := warpSum(z)
	mu := warpSum(s1) / zt
	var m2 [32]float64
	for b, p := range parts {
		if p[1] == 0 {
			continue
		}
		f := math.Exp(p[0] - m)
		d := p[0] - m + p[2] - mu
		m2[b%32] += p[3]*f + p[1]*f*d*d
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	lnZ := math.Log(zt)
	return lnZ + m, (lnZ - mu) / math.Ln2, warpSum(m2) / zt / (math.Ln2 * math.Ln2)
}

// mirrorLogitStats runs both stages over a row in chunks of chunk entries.
func mirrorLogitStats(row []float32, chunk int) (logZ, entropyBits, varentropyBits2 float64) {
	var parts [][4]float64
	for lo := 0; lo < len(row); lo += chunk {
		parts = append(parts, mirrorLogitStatsPart(row[lo:min(len(row), lo+chunk)]))
	}
	return mirrorLogitStatsFinish(parts)
}

// The chunked statistics against metrics.LogitStats: chunks of every size from one
// entry to the whole row, more chunks than lanes, chunks of only -Inf, a NaN, an
// infinite max, sharp and flat rows.
func TestLogitStatsMirrorMatchesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	inf := float32(math.Inf(-1))
	for _, tc := range []struct {
		name     string
		n, chunk int
		scale    float64
		edit     func(row []float32)
		wantNaN  bool
	}{
		{name: "flat", n: 5000, chunk: 1024, scale: 1e-3},
		{name: "sharp", n: 128256, chunk: logitStatsChunk, scale: 8},
		{name: "one chunk", n: 300, chunk: 1024, scale: 2},
		{name: "single entries", n: 100, chunk: 1, scale: 3},
		{name: "many parts", n: 70000, chunk: 64, scale: 4},
		{name: "a chunk of -Inf", n: 4096, chunk: 1024, scale: 2, edit: func(r []float32) {
			for i := 1024; i < 2048; i++ {
				r[i] = inf
			}
			r[5] = inf
		}},
		{name: "one peak", n: 3000, chunk: 256, scale: 1, edit: func(r []float32) { r[2999] = 60 }},
		{name: "NaN", n: 3000, chunk: 256, scale: 1, edit: func(r []float32) { r[7] = float32(math.NaN()) }, wantNaN: true},
		{name: "NaN in a -Inf chunk", n: 512, chunk: 256, scale: 1, edit: func(r []float32) {
			for i := 256; i < 512; i++ {
				r[i] = inf
			}
			r[300] = float32(math.NaN())
		}, wantNaN: true},
		{name: "+Inf", n: 3000, chunk: 256, scale: 1, edit: func(r []float32) { r[9] = float32(math.Inf(1)) }, wantNaN: true},
		{name: "all -Inf", n: 600, chunk: 256, edit: func(r []float32) {
			for i := range r {
				r[i] = inf
			}
		}, wantNaN: true},
	} {
		row := make([]float32, tc.n)
		for i := range row {
			row[i] = float32(rng.NormFloat64() * tc.scale)
		}
		if tc.edit != nil {
			tc.edit(row)
		}
		lz, ent, v := mirrorLogitStats(row, tc.chunk)
		wz, went, wv := metrics.LogitStats(row)
		if tc.wantNaN {
			require.True(t, math.IsNaN(lz) && math.IsNaN(ent) && math.IsNaN(v), "%s: %g %g %g", tc.name, lz, ent, v)
			require.True(t, math.IsNaN(wz), tc.name)
			continue
		}
		require.InDelta(t, wz, lz, 1e-12*math.Max(1, math.Abs(wz)), tc.name)
		require.InDelta(t, went, ent, 1e-12*math.Max(1, went), tc.name)
		require.InDelta(t, wv, v, 1e-10*math.Max(1, wv), tc.name)
	}
}

// mirrorAttentionPart follows one attention_cached block for one query head over keys
// [lo, hi): warps take 32-key chunks in turn with an online softmax, then merge. It
// returns the block's max, sum and unnormalised output (what a split writes).
func mirrorAttentionPart(scores []float32, v [][]float32, lo, hi, warps int) (float32, float32, []float32) {
	dim := len(v[0])
	type state struct {
		m, l float32
		acc  []float32
	}
	st := make([]state, warps)
	for w := range st {
		st[w] = state{m: float32(math.Inf(-1)), acc: make([]float32, dim)}
		for j0 := lo + w*32; j0 < hi; j0 += warps * 32 {
			cnt := min(32, hi-j0)
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
	var L float32
	for d := range out {
		L = 0
		var o float32
		for _, s := range st {
			f := float32(math.Exp(float64(s.m - mx)))
			L += s.l * f
			o += s.acc[d] * f
		}
		out[d] = o
	}
	return mx, L, out
}

// mirrorAttention follows attention_cached for one query head and, when span > 0,
// attention_combine: the row split into blocks of span keys, merged in order. It
// returns softmax(s)·v.
func mirrorAttention(scores []float32, v [][]float32, warps, span int) []float32 {
	if span <= 0 {
		_, l, o := mirrorAttentionPart(scores, v, 0, len(scores), warps)
		for d := range o {
			o[d] /= l
		}
		return o
	}
	type part struct {
		m, l float32
		o    []float32
	}
	var parts []part
	for lo := 0; lo < len(scores); lo += span {
		m, l, o := mirrorAttentionPart(scores, v, lo, min(len(scores), lo+span), warps)
		parts = append(parts, part{m, l, o})
	}
	mx := float32(math.Inf(-1))
	for _, p := range parts {
		mx = max(mx, p.m)
	}
	out := make([]float32, len(v[0]))
	for d := range out {
		var L, o float32
		for _, p := range parts {
			f := float32(math.Exp(float64(p.m - mx)))
			L += p.l * f
			o += p.o[d] * f
		}
		out[d] = o / L
	}
	return out
}

func TestAttentionMirrorMatchesSoftmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ keys, dim, warps, span int }{{1, 8, 1, 0}, {1, 8, 16, 0}, {33, 16, 2, 0}, {512, 64, 16, 0},
		{700, 64, 4, 0}, {95, 8, 16, 0}, {576, 64, 4, 128}, {33, 16, 1, 32}, {700, 64, 16, 96}, {20000, 8, 10, 320}} {
		scores := make([]float32, tc.keys)
		v := make([][]float32, tc.keys)
		for j := range scores {
			scores[j] = float32(rng.NormFloat64() * 4)
			v[j] = make([]float32, tc.dim)
			for d := range v[j] {
				v[j][d] = float32(rng.NormFloat64())
			}
		}
		got := mirrorAttention(scores, v, tc.warps, tc.span)
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

// A row that fits one split comes out of attention_combine with the bits of the
// unsplit kernel, so rows up to attnSplitKeys keys do not change when a launch splits.
func TestAttentionOneSplitIsUnsplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, keys := range []int{1, 31, 100, 128} {
		scores := make([]float32, keys)
		v := make([][]float32, keys)
		for j := range scores {
			scores[j] = float32(rng.NormFloat64() * 6)
			v[j] = []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64())}
		}
		require.Equal(t, mirrorAttention(scores, v, 4, 0), mirrorAttention(scores, v, 4, attnSplitKeys), "%d keys", keys)
	}
}
