//go:build amd64 && !purego

package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

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
