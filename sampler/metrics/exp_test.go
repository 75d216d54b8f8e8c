package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireExpBits checks expShifted against math.Exp, the definition, bit for bit,
// with the kernel on (where the CPU has it) and off.
func requireExpBits(t *testing.T, src []float32, shift float64) {
	t.Helper()
	for _, kernel := range []bool{useExpKernel, false} {
		func() {
			defer func(old bool) { useExpKernel = old }(useExpKernel)
			useExpKernel = kernel
			dst := make([]float64, len(src))
			ExpShifted(dst, src, shift)
			for i, v := range src {
				want := math.Exp(float64(v) - shift)
				require.Equalf(t, math.Float64bits(want), math.Float64bits(dst[i]),
					"kernel=%v exp(%v − %v) = %v, math.Exp says %v", kernel, v, shift, dst[i], want)
			}
		}()
	}
}

func TestExpShiftedMatchesMathExp(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	rng := rand.New(rand.NewPCG(1, 2))
	uniform := func(n int, lo, hi float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(lo + (hi-lo)*rng.Float64())
		}
		return s
	}
	cases := []struct {
		name  string
		src   []float32
		shift float64
	}{
		{"empty", nil, 0},
		{"shorter than a block", []float32{0, -1, -2}, 0},
		{"exact points", []float32{0, 1, -1, 0.5, -0.5, 2, -2, 10, -10, 100, -100}, 0},
		{"signed zeros", []float32{0, float32(math.Copysign(0, -1)), 0, 0}, 0},
		{"logits minus their max", uniform(1027, -30, 12), 12.5},
		{"a flat vocabulary", uniform(4096, -0.01, 0.01), 0.01},
		{"the kernel's range edges", []float32{-708, 708, -707.99994, 707.99994, -708.0001, 708.0001, -709, 709}, 0},
		{"denormal results and underflow", []float32{-720, -740, -744.4, -745.2, -746, -1000, -708.5, -708.9}, 0},
		{"overflow", []float32{709.7, 709.8, 710, 1e30, 88, 89, 700, 705}, 0},
		{"non-finite", []float32{-inf, inf, nan, 0, 1, -inf, -inf, -inf, 2, 3, 4, 5}, 0},
		{"a shift that makes every argument large", uniform(64, -1, 1), -800},
		{"subnormal float32 inputs", []float32{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1e-40, -1e-40}, 0},
		{"wide random", uniform(10000, -800, 800), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { requireExpBits(t, c.src, c.shift) })
	}
}

// TestExpKernelCoversSafeBlocks makes sure the comparison above exercised the
// kernel: on a CPU that has it, it must take every block of in-range arguments.
func TestExpKernelCoversSafeBlocks(t *testing.T) {
	if !useExpKernel {
		t.Skip("no exp kernel (AVX2+FMA or NEON) on this CPU or build")
	}
	src := []float32{0, -1, -700, 708, -708, 3, -3.25, 1e-3}
	dst := make([]float64, len(src))
	require.Equal(t, len(src), expShiftedKernel(&dst[0], &src[0], 0, len(src)))
	src[5] = float32(math.NaN())
	require.Equal(t, 4, expShiftedKernel(&dst[0], &src[0], 0, len(src)), "stops before the block holding a NaN")
}

func FuzzExpShifted(f *testing.F) {
	f.Add(float32(0), float32(-1), float32(-700), float32(3), 0.0)
	f.Add(float32(-708.5), float32(709), float32(math.Inf(-1)), float32(1), 1.5)
	f.Fuzz(func(t *testing.T, a, b, c, d float32, shift float64) {
		requireExpBits(t, []float32{a, b, c, d, d, c, b, a, a}, shift)
	})
}

func BenchmarkExpShifted(b *testing.B) {
	src := make([]float32, 49152)
	for i := range src {
		src[i] = float32(i%977) * -0.03
	}
	dst := make([]float64, len(src))
	for b.Loop() {
		ExpShifted(dst, src, 0)
	}
}
