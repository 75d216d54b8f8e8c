package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// ulps is the distance between the float32 got and the exact value want, in units
// of want's last place (float32 spacing at want).
func ulps(got float32, want float64) float64 {
	w := float32(want)
	step := math.Nextafter32(w, float32(math.Inf(1))) - w
	if step == 0 || math.IsInf(float64(step), 0) {
		step = w - math.Nextafter32(w, 0)
	}
	return math.Abs(float64(got)-want) / float64(step)
}

func TestExpfAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(x float32) {
		want := math.Exp(float64(x))
		got := expf(x)
		if want < math.SmallestNonzeroFloat32 {
			require.LessOrEqual(t, float64(got), 2*math.SmallestNonzeroFloat32, "expf(%g)", x)
			return
		}
		u := ulps(got, want)
		worst = max(worst, u)
		require.LessOrEqual(t, u, 2.0, "expf(%g) = %g, want %g", x, got, want)
	}
	for range 50000 {
		check(float32(r.Float64()*180 - 100)) // the whole finite range
		check(float32(r.NormFloat64() * 4))   // where softmax and SiLU live
	}
	for x := float32(-1); x <= 1; x += 1.0 / 1024 {
		check(x)
	}
	t.Logf("worst error %.2f ulp", worst)
}

func TestExpfSpecialValues(t *testing.T) {
	for _, tc := range []struct {
		x, want float32
	}{
		{0, 1},
		{float32(math.Inf(1)), float32(math.Inf(1))},
		{float32(math.Inf(-1)), 0},
		{89, float32(math.Inf(1))},
		{-105, 0},
		{1, float32(math.E)},
	} {
		require.Equal(t, tc.want, expf(tc.x), "expf(%g)", tc.x)
	}
	require.True(t, math.IsNaN(float64(expf(float32(math.NaN())))))
	// Subnormal results are kept (rounded once), not flushed.
	require.Equal(t, float32(math.Exp(-100)), expf(-100))
}

func BenchmarkExpf(b *testing.B) {
	xs := make([]float32, 4096)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range xs {
		xs[i] = float32(r.NormFloat64() * 4)
	}
	b.Run("expf", func(b *testing.B) {
		var s float32
		for range b.N {
			for _, x := range xs {
				s += expf(x)
			}
		}
		_ = s
	})
	b.Run("math.Exp", func(b *testing.B) {
		var s float64
		for range b.N {
			for _, x := range xs {
				s += math.Exp(float64(x))
			}
		}
		_ = s
	})
}

// TestExpfKernelsMatchGo checks the AVX2 and NEON SiLU and softmax exponentials
// against expf bit for bit, on values across the whole range, special values in
// blocks the kernels hand back to Go, and lengths that are not multiples of 8 or 4.
func TestExpfKernelsMatchGo(t *testing.T) {
	if !hasSIMDKernels() {
		t.Skip("no AVX2 or NEON kernels in this CPU or build: only the Go path runs here")
	}
	r := rand.New(rand.NewPCG(5, 8))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		-86, 88, -86.01, 88.01, -100, 100, -104, 87.9, -87.9}
	// odds: one value in odds/2 is special or out of range. Rare ones leave the
	// long in-range runs the softmax kernel takes three blocks at a time.
	for _, c := range []struct{ n, odds int }{{1, 6}, {3, 6}, {4, 6}, {5, 6}, {7, 6}, {8, 6}, {9, 6}, {64, 6}, {1000, 6}, {4099, 6}, {24, 1 << 30}, {1000, 400}, {4099, 400}} {
		n := c.n
		gate, up := make([]float32, n), make([]float32, n)
		for i := range gate {
			switch r.IntN(c.odds) {
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
		require.Equal(t, wantG, gotG, "swiglu, n=%d, odds %d", n, c.odds)
		require.Equal(t, wantS, gotS, "expSub, n=%d, odds %d", n, c.odds)
	}
}
