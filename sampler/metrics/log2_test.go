package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireLog2Bits checks normalizeLog2 against its definition, p[i] /= z and
// math.Log2(math.Max(p[i], clip)), bit for bit, with the kernel on (where the CPU
// has it) and off.
func requireLog2Bits(t *testing.T, src []float64, z, clip float64) {
	t.Helper()
	for _, kernel := range []bool{useLog2Kernel, false} {
		func() {
			defer func(old bool) { useLog2Kernel = old }(useLog2Kernel)
			useLog2Kernel = kernel
			p := append([]float64(nil), src...)
			lg := make([]float64, len(src))
			normalizeLog2(p, lg, z, clip)
			bad := 0
			for i, v := range src {
				q := v / z
				want := math.Log2(math.Max(q, clip))
				if math.Float64bits(q) != math.Float64bits(p[i]) || math.Float64bits(want) != math.Float64bits(lg[i]) {
					if bad == 0 {
						t.Errorf("kernel=%v i=%d: %v/%v = %v, log2 %v (%#x); math says %v, log2 %v (%#x)",
							kernel, i, v, z, p[i], lg[i], math.Float64bits(lg[i]), q, want, math.Float64bits(want))
					}
					bad++
				}
			}
			require.Zerof(t, bad, "kernel=%v: %d of %d elements differ", kernel, bad, len(src))
		}()
	}
}

// scaled returns v·2^e for each e in [lo, hi] and each v, with the next float64 on
// either side of each product.
func scaled(vs []float64, lo, hi int) []float64 {
	var out []float64
	for e := lo; e <= hi; e++ {
		for _, v := range vs {
			x := math.Ldexp(v, e)
			out = append(out, math.Nextafter(x, 0), x, math.Nextafter(x, 2))
		}
	}
	return out
}

func TestNormalizeLog2MatchesMathLog2(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// every float64 in [2^lo, 1): a random exponent field in range, random mantissa
	bitsIn := func(n, lo int) []float64 {
		s := make([]float64, n)
		for i := range s {
			field := uint64(1023 + lo + rng.IntN(-lo))
			s[i] = math.Float64frombits(field<<52 | rng.Uint64()>>12)
		}
		return s
	}
	logUniform := func(n int, lo, hi float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*rng.Float64())
		}
		return s
	}
	// softmax rows as Compute makes them: exponentials and their sum
	row := func(n int, spread float64) ([]float64, float64) {
		s := make([]float64, n)
		var z float64
		for i := range s {
			s[i] = math.Exp(-spread * rng.Float64())
			z += s[i]
		}
		return s, z
	}
	probRow, probZ := row(2053, 30)
	flatRow, flatZ := row(512, 0.01)
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		src     []float64
		z, clip float64
	}{
		{"empty", nil, 1, probClip},
		{"shorter than a block", []float64{0.5, 0.3, 0.7}, 1, probClip},
		{"one and the clip", []float64{1, probClip, 1, probClip, 1, 1, probClip}, 1, probClip},
		{"powers of two and their neighbours", scaled([]float64{1}, -34, 0), 1, probClip},
		{"Sqrt2/2 (archLog's branch) and neighbours", scaled([]float64{0.70710678118654757, math.Sqrt2 / 2, 0.75, 0.999999}, -33, 0), 1, probClip},
		{"below the clip", []float64{0, math.Copysign(0, -1), 5e-324, 0x1p-1022, 1e-300, 9.999999999e-11, math.Nextafter(probClip, 0), math.Nextafter(probClip, 1)}, 1, probClip},
		{"every mantissa, exponents of [1e-10, 1]", bitsIn(1<<20, -34), 1, probClip},
		{"log-uniform over [1e-10, 1]", logUniform(100003, probClip, 1), 1, probClip},
		{"a peaked softmax row", probRow, probZ, probClip},
		{"a flat softmax row", flatRow, flatZ, probClip},
		{"tails of every length", probRow[:13], probZ, probClip},
		{"quotients above 1", logUniform(999, 1e-3, 1e3), 0.37, probClip},
		{"non-finite quotients", []float64{1, 0.5, nan, 0.25, 0.1, 0.2, 0.3, 0.4, inf, 0.6, 0.7, 0.8, 0.9}, 1, probClip},
		{"a zero normaliser", []float64{0, 0.5, 1, 2, 0.1, 0.2, 0.3, 0.4}, 0, probClip},
		{"a NaN normaliser", []float64{0.1, 0.2, 0.3, 0.4, 0.5}, nan, probClip},
		{"a subnormal clip (math.Log2 only)", []float64{0, 1e-320, 1e-310, 0.5, 0.25}, 1, 1e-315},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { requireLog2Bits(t, c.src, c.z, c.clip) })
	}
	t.Run("every length up to 40", func(t *testing.T) {
		for n := 0; n <= 40; n++ {
			requireLog2Bits(t, probRow[:n], probZ, probClip)
		}
	})
}

// TestLog2KernelCoversSafeBlocks makes sure the comparison above exercised the
// kernel: on a CPU that has it, it must take every block of finite quotients.
func TestLog2KernelCoversSafeBlocks(t *testing.T) {
	if !useLog2Kernel {
		t.Skip("no log2 kernel (AVX2) on this CPU or build")
	}
	p := []float64{1, 0.5, 0, 1e-12, 0.3, 0.7, 0.1, 0.9}
	lg := make([]float64, len(p))
	require.Equal(t, len(p), normalizeLog2Kernel(&p[0], &lg[0], 1, probClip, len(p)))
	p[6] = math.NaN()
	require.Equal(t, 4, normalizeLog2Kernel(&p[0], &lg[0], 1, probClip, len(p)), "stops before the block holding a NaN")
}

func FuzzNormalizeLog2(f *testing.F) {
	f.Add(0.5, 0.3, 1e-11, 1.0, 1.0)
	f.Add(0.7071067811865476, 0x1p-20, 0.0, 3.0, 2.5)
	f.Fuzz(func(t *testing.T, a, b, c, d, z float64) {
		requireLog2Bits(t, []float64{a, b, c, d, d, c, b, a, a}, z, probClip)
	})
}

func BenchmarkNormalizeLog2(b *testing.B) {
	src := make([]float64, 512)
	for i := range src {
		src[i] = math.Exp(-float64(i%97) * 0.2)
	}
	p := make([]float64, len(src))
	lg := make([]float64, len(src))
	for b.Loop() {
		copy(p, src)
		normalizeLog2(p, lg, 1.5, probClip)
	}
}

// TestAttnStatsLog2KernelKeepsBits: Compute gives the same bits with the log2 kernel
// as with math.Log2 per element (the kernel off), over masked and padded views and
// row lengths that leave tails.
func TestAttnStatsLog2KernelKeepsBits(t *testing.T) {
	if !useLog2Kernel {
		t.Skip("no log2 kernel (AVX2) on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	compute := func(kernel bool, scores []float32, heads, kv int, v AttnView) AttnStats {
		defer func(old bool) { useLog2Kernel = old }(useLog2Kernel)
		useLog2Kernel = kernel
		var a AttnStats
		require.NoError(t, a.ComputeView(scores, heads, kv, v))
		return a
	}
	bits := func(a AttnStats) []uint64 {
		out := []uint64{math.Float64bits(a.Entropy), math.Float64bits(a.Varentropy),
			math.Float64bits(a.VarentropyDDOF1), math.Float64bits(a.Agreement), math.Float64bits(a.InteractionStrength)}
		for _, h := range a.HeadEntropy {
			out = append(out, math.Float64bits(h))
		}
		return out
	}
	for _, c := range []struct {
		heads, kv int
		spread    float64
		view      AttnView
	}{
		{32, 512, 8, AttnView{Mode: Masked}},
		{32, 513, 40, AttnView{Mode: Masked}},
		{8, 7, 3, AttnView{Mode: Masked}},
		{9, 1, 1, AttnView{Mode: Masked}},
		{32, 1029, 25, AttnView{Mode: Padded, PadLen: 4096}},
		{4, 130, 60, AttnView{Mode: Padded, PadLen: 2048}},
	} {
		scores := make([]float32, c.heads*c.kv)
		for i := range scores {
			scores[i] = float32(c.spread * (rng.Float64() - 0.5))
		}
		require.Equalf(t, bits(compute(false, scores, c.heads, c.kv, c.view)), bits(compute(true, scores, c.heads, c.kv, c.view)),
			"%d heads × %d keys, %s", c.heads, c.kv, c.view)
	}
}
