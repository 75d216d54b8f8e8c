//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExpfKernelsMatchGo checks the AVX2 SiLU and softmax exponentials against
// expf bit for bit, on values across the whole range, special values in blocks the
// kernels hand back to Go, and lengths that are not multiples of 8.
func TestExpfKernelsMatchGo(t *testing.T) {
	if !hasAVX2F16C() {
		t.Skip("no AVX2: only the Go path runs here")
	}
	r := rand.New(rand.NewPCG(5, 8))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		-86, 88, -86.01, 88.01, -100, 100, -104, 87.9, -87.9}
	for _, n := range []int{1, 7, 8, 9, 64, 1000, 4099} {
		gate, up := make([]float32, n), make([]float32, n)
		for i := range gate {
			switch r.IntN(6) {
			case 0:
				gate[i] = special[r.IntN(len(special))]
			case 1:
				gate[i] = float32(r.Float64()*220 - 110)
			default:
				gate[i] = float32(r.NormFloat64() * 3)
			}
			up[i] = float32(r.NormFloat64())
		}
		run := func(simd bool) ([]uint32, []uint32) {
			setSIMD(t, simd)
			g := append([]float32(nil), gate...)
			swiglu(g, up)
			s := append([]float32(nil), gate...)
			expSub(s, 0.75)
			return bitsOf(g), bitsOf(s)
		}
		wantG, wantS := run(false)
		gotG, gotS := run(true)
		require.Equal(t, wantG, gotG, "swiglu, n=%d", n)
		require.Equal(t, wantS, gotS, "expSub, n=%d", n)
	}
}

func BenchmarkSwiglu(b *testing.B) {
	const n = 1536 * 32
	src, gate, up := make([]float32, n), make([]float32, n), make([]float32, n)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range src {
		src[i], up[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64())
	}
	for _, simd := range []bool{true, false} {
		b.Run(map[bool]string{true: "avx2", false: "go"}[simd], func(b *testing.B) {
			setSIMD(b, simd)
			for range b.N {
				copy(gate, src)
				swiglu(gate, up)
			}
		})
	}
}

// TestWeightedSumMatchesAxpy checks the register-resident attention sum against the
// axpy chain it replaces, bit for bit, for head sizes with and without a 32-float
// remainder.
func TestWeightedSumMatchesAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	for _, hd := range []int{8, 32, 64, 80, 96, 128} {
		for _, n := range []int{1, 5, 300} {
			stride := 3*hd + 8
			p, v := make([]float32, n), make([]float32, n*stride)
			for i := range p {
				p[i] = float32(r.Float64())
			}
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			want := make([]float32, hd)
			setSIMD(t, false)
			for j, a := range p {
				axpy(want, a, v[j*stride:j*stride+hd])
			}
			for _, simd := range []bool{false, true} {
				setSIMD(t, simd)
				got := make([]float32, hd)
				for i := range got {
					got[i] = float32(i) // weightedSum overwrites
				}
				weightedSum(got, p, v, stride)
				require.Equal(t, bitsOf(want), bitsOf(got), "hd %d, n %d, simd %v", hd, n, simd)
			}
		}
	}
}
