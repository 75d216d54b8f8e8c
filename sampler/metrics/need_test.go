package metrics

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// needLogits are the shapes a Need must survive: flat and peaked rows, ties
// (including −0 against +0) around every threshold, −inf runs and NaNs.
func needLogits() map[string][]float32 {
	r := rand.New(rand.NewPCG(7, 11))
	flat := make([]float32, 5000)
	peaked := make([]float32, 5000)
	ties := make([]float32, 3000)
	for i := range flat {
		flat[i] = float32(r.NormFloat64() * 0.3)
		peaked[i] = float32(r.NormFloat64() * 4)
	}
	peaked[1234] = 40
	for i := range ties {
		ties[i] = float32(r.IntN(7)) - 3 // many equal logits at every rank
	}
	ties[5], ties[9] = float32(math.Copysign(0, -1)), 0
	negInf := slices2(peaked[:300], 300, float32(math.Inf(-1)))
	nan := append([]float32(nil), flat[:400]...)
	nan[17], nan[300] = float32(math.NaN()), float32(math.NaN())
	// Every logit countThreshold samples for a top-101 Need stands above the rest,
	// so its estimate is reached by too few and the heap has to step in.
	sampledHigh := make([]float32, 5000)
	for i := range sampledHigh {
		sampledHigh[i] = float32(r.NormFloat64())
		if i%(101/8) == 0 {
			sampledHigh[i] += 20
		}
	}
	return map[string][]float32{
		"flat": flat, "sampled high": sampledHigh, "peaked": peaked, "ties": ties, "neg-inf tail": negInf, "nan": nan,
		"one": {1.5}, "all -inf": {float32(math.Inf(-1)), float32(math.Inf(-1))},
	}
}

// slices2 is a followed by n copies of v.
func slices2(a []float32, n int, v float32) []float32 {
	out := append([]float32(nil), a...)
	for range n {
		out = append(out, v)
	}
	return out
}

func requireSameCandidates(t *testing.T, want, got []Candidate) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.Equal(t, want[i].ID, got[i].ID, "rank %d", i)
		require.Equal(t, math.Float32bits(want[i].Logit), math.Float32bits(got[i].Logit), "rank %d", i)
	}
}

func TestFillDistNeedIsFillDistSortedLazily(t *testing.T) {
	needs := []*Need{nil, {}, {Top: 1}, {Top: 27}, {Top: 101}, {Within: 0.5}, {Within: 2.3}, {Top: 5, Within: 1},
		{Within: math.Inf(1)}, {Top: 1 << 20}, {Within: math.NaN()}, {Within: -1}}
	for name, logits := range needLogits() {
		var full Dist
		FillDist(&full, logits, 0)
		for _, need := range needs {
			var d Dist
			d.Candidates = append(d.Candidates, Candidate{ID: 9, Logit: 9}) // a previous step's
			FillDistNeed(&d, logits, 0, need)
			// What a sampler may read without asking: a prefix of the full order,
			// holding what the Need names.
			requireSameCandidates(t, full.Candidates[:len(d.Candidates)], d.Candidates)
			require.Equal(t, full.Len(), d.Len(), "%s %+v", name, need)
			require.Equal(t, full.Truncated(), d.Truncated())
			require.Equal(t, math.Float64bits(full.TailMass), math.Float64bits(d.TailMass), "%s %+v", name, need)
			require.Equal(t, math.Float64bits(full.LogPartition), math.Float64bits(d.LogPartition))
			if need != nil && len(full.Candidates) > 0 {
				top := float64(full.Candidates[0].Logit)
				want := min(need.Top+1, full.Len())
				for want < full.Len() && float64(full.Candidates[want-1].Logit) >= top-max(need.Within, 0) {
					want++
				}
				require.GreaterOrEqual(t, len(d.Candidates), want, "%s %+v", name, need)
			}
			for _, c := range full.Candidates {
				got, ok := d.Find(c.ID)
				require.True(t, ok, "%s: candidate %d", name, c.ID)
				require.Equal(t, math.Float32bits(c.Logit), math.Float32bits(got.Logit))
			}
			_, ok := d.Find(int32(len(logits)))
			require.False(t, ok)
			requireSameCandidates(t, full.Candidates, d.Sorted(len(d.Candidates)+1))
			require.Equal(t, full.Len(), len(d.Candidates))

			// The CUDA host path: candidates from the row, statistics from the device.
			var g Dist
			g.SetCandidatesNeed(logits, 0, need)
			g.SetStats(len(logits), full.LogPartition, full.Entropy, full.Varentropy)
			require.Equal(t, full.Len(), g.Len(), "%s %+v", name, need)
			require.Equal(t, math.Float64bits(full.TailMass), math.Float64bits(g.TailMass), "%s %+v", name, need)
			requireSameCandidates(t, full.Candidates[:len(g.Candidates)], g.Candidates)
			requireSameCandidates(t, full.Candidates, g.Sorted(g.Len()))

			// A top-k list is FillDist's, whatever the Need: sorted, nothing pending.
			var top5, k5, g5 Dist
			FillDist(&top5, logits, 5)
			FillDistNeed(&k5, logits, 5, need)
			g5.SetCandidatesNeed(logits, 5, need)
			for _, got := range []*Dist{&k5, &g5} {
				requireSameCandidates(t, top5.Candidates, got.Candidates)
				require.Equal(t, len(top5.Candidates), got.Len())
			}
		}
	}
}

func TestDistFindSkipsNaN(t *testing.T) {
	var d Dist
	FillDistNeed(&d, []float32{1, float32(math.NaN()), 0.5, 0.25}, 0, &Need{Top: 1})
	_, ok := d.Find(1)
	require.False(t, ok)
	c, ok := d.Find(3)
	require.True(t, ok)
	require.Equal(t, float32(0.25), c.Logit)
}

func FuzzFillDistNeed(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 128, 191, 0, 0, 0, 128, 0, 0, 0, 0}, uint8(1), 0.5)
	f.Fuzz(func(t *testing.T, b []byte, top uint8, within float64) {
		logits := make([]float32, len(b)/4)
		for i := range logits {
			logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		var full, d Dist
		FillDist(&full, logits, 0)
		FillDistNeed(&d, logits, 0, &Need{Top: int(top), Within: within})
		requireSameCandidates(t, full.Candidates[:len(d.Candidates)], d.Candidates)
		require.Equal(t, full.Len(), d.Len())
		requireSameCandidates(t, full.Candidates, d.Sorted(full.Len()))
	})
}

// BenchmarkFillDistNeed is one sweep step's summary of SmolLM2's 49k logits, for
// what each of the sweep's samplers declares, against sorting everything.
func BenchmarkFillDistNeed(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, 49152)
	for i := range logits {
		logits[i] = float32(r.NormFloat64())
	}
	for _, c := range []struct {
		name string
		need *Need
	}{{"all", nil}, {"greedy", &Need{Top: 1}}, {"min_p=0.1", &Need{Within: -math.Log(0.1)}}, {"entropix", &Need{Top: 101}},
		{"min_p=0.1 flat", &Need{Within: -math.Log(0.1)}}} {
		logits := logits
		if strings.HasSuffix(c.name, "flat") {
			// A random model's logits (the sweep benchmark's): min-p keeps about half.
			logits = append([]float32(nil), logits...)
			for i := range logits {
				logits[i] *= 0.56
			}
		}
		b.Run(c.name, func(b *testing.B) {
			var d Dist
			for b.Loop() {
				FillDistNeed(&d, logits, 0, c.need)
			}
		})
	}
}
