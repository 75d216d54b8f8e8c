package metrics

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func topKIDs(c []Candidate) []int32 {
	ids := make([]int32, len(c))
	for i, x := range c {
		ids[i] = x.ID
	}
	return ids
}

// Orders derived by hand from TopK's rule (descending, ties by lower id, −0 = +0,
// NaN never ranks), checked through TopK and through both of its ways.
func TestTopKOrderBothWays(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	tests := []struct {
		name   string
		logits []float32
		k      int
		want   []int32
	}{
		{"ties by lower id", []float32{1, 3, 3, 2, 3}, 2, []int32{1, 2}},
		{"k above vocab", []float32{0.5, -1, 2}, 10, []int32{2, 0, 1}},
		{"neg inf ranks last", []float32{-inf, 0, -inf}, 3, []int32{1, 0, 2}},
		{"k zero", []float32{1, 2}, 0, []int32{}},
		{"minus zero ties plus zero", []float32{negZero, 0, -1, negZero}, 4, []int32{0, 1, 3, 2}},
		{"nan never ranks", []float32{nan, 2, nan, -inf, inf}, 5, []int32{4, 1, 3}},
		{"all nan", []float32{nan, nan}, 2, []int32{}},
		{"one", []float32{-7}, 1, []int32{0}},
		{"negatives", []float32{-1, -0.5, -2, -0.5}, 3, []int32{1, 3, 0}},
	}
	for _, tt := range tests {
		for _, impl := range []struct {
			name string
			f    func([]Candidate, []float32, int) []Candidate
		}{{"TopK", TopK}, {"heap", topKByHeap}, {"sort", topKBySort}} {
			if impl.name != "TopK" && (tt.k < 1 || tt.k > len(tt.logits)) {
				continue // TopK clamps k before it picks a way
			}
			t.Run(tt.name+"/"+impl.name, func(t *testing.T) {
				assert.Equal(t, tt.want, topKIDs(impl.f(nil, tt.logits, tt.k)))
			})
		}
	}
}

// The two ways agree on every distribution shape a model gives (and some it
// should not), for every k, and append after what dst holds.
func TestTopKSortMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(int) float32{
		"smooth":      func(int) float32 { return float32(rng.NormFloat64() * 4) },
		"heavy ties":  func(int) float32 { return float32(rng.IntN(5)) - 2 },
		"signed zero": func(int) float32 { return float32(math.Copysign(0, rng.NormFloat64())) },
		"inf and nan": func(i int) float32 {
			switch i % 7 {
			case 0:
				return float32(math.Inf(1 - 2*rng.IntN(2)))
			case 3:
				return float32(math.NaN())
			}
			return float32(rng.NormFloat64())
		},
		"subnormal": func(int) float32 { return math.Float32frombits(uint32(rng.IntN(1<<23)) | uint32(rng.IntN(2))<<31) },
	}
	for name, gen := range shapes {
		for _, n := range []int{1, 2, 17, 1000, 70000} {
			logits := make([]float32, n)
			for i := range logits {
				logits[i] = gen(i)
			}
			for _, k := range []int{1, 3, n / 16, n / 2, n} {
				if k < 1 {
					continue
				}
				prefix := []Candidate{{ID: -1}}
				want := topKByHeap(append([]Candidate(nil), prefix...), logits, k)
				got := topKBySort(append([]Candidate(nil), prefix...), logits, k)
				require.Equal(t, want, got, "%s n=%d k=%d", name, n, k)
			}
		}
	}
}

func FuzzTopKSortMatchesHeap(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 128, 191, 0, 0, 0, 128, 0, 0, 0, 0}, uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, k uint8) {
		logits := make([]float32, len(b)/4)
		for i := range logits {
			logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		kk := max(1, min(int(k), len(logits)))
		if len(logits) == 0 {
			return
		}
		want := topKByHeap(nil, logits, kk)
		got := topKBySort(nil, logits, kk)
		// Candidates compare by bits: a NaN never gets in, and −0 keeps its sign.
		require.Equal(t, len(want), len(got))
		for i := range want {
			require.Equal(t, want[i].ID, got[i].ID)
			require.Equal(t, math.Float32bits(want[i].Logit), math.Float32bits(got[i].Logit))
		}
	})
}

// BenchmarkTopKFullVocab is the whole SmolLM2 vocabulary ranked, as samplers
// that need the full distribution ask at every step.
func BenchmarkTopKFullVocab(b *testing.B) {
	logits := make([]float32, 49152)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i)*0.37) * 8)
	}
	for _, impl := range []struct {
		name string
		f    func([]Candidate, []float32, int) []Candidate
	}{{"heap", topKByHeap}, {"sort", topKBySort}} {
		b.Run(impl.name, func(b *testing.B) {
			dst := make([]Candidate, 0, len(logits))
			b.ReportAllocs()
			for b.Loop() {
				dst = impl.f(dst[:0], logits, len(logits))
			}
		})
	}
}
