//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRoundBF16KernelMatchesRule checks the kernel against roundBF16, itself checked
// against hand-derived bits in TestRoundBF16.
func TestRoundBF16KernelMatchesRule(t *testing.T) {
	requireAVX512F(t)
	const block = 16
	src := make([]float32, 0, len(roundBF16Cases)+block)
	for _, c := range roundBF16Cases { // the hand-derived cases first, then random bits
		src = append(src, math.Float32frombits(c.in))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for len(src)%block != 0 || len(src) < 1<<16 {
		src = append(src, math.Float32frombits(rng.Uint32()))
	}
	dst := make([]uint32, len(src)/2)
	roundBF16AVX512(&dst[0], &src[0], len(src))
	for i, v := range src {
		got := uint16(dst[i/2] >> (16 * (i % 2)))
		require.Equalf(t, roundBF16(v), got, "element %d (%#08x)", i, math.Float32bits(v))
	}
}

// TestPackBF16KernelPathsAgree packs the same tokens with the kernel and without,
// for even widths (one run of pairs, with a tail the kernel leaves to Go) and odd
// ones (per token, padded).
func TestPackBF16KernelPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ n, cols int }{{1, 16}, {1, 18}, {3, 576}, {5, 62}, {2, 7}, {12, 1536}, {4, 9}} {
		x := make([]float32, c.n*c.cols)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(60)-30)))
		}
		k2 := (c.cols + 1) / 2
		want, got := make([]uint32, c.n*k2), make([]uint32, c.n*k2)
		func() {
			defer func(old bool) { useRoundAsm = old }(useRoundAsm)
			useRoundAsm = false
			packBF16(want, x, c.n, c.cols)
		}()
		packBF16(got, x, c.n, c.cols)
		require.Equalf(t, want, got, "%d tokens × %d", c.n, c.cols)
	}
}

// requireAVX512F skips a test that calls an AVX-512F kernel directly on a CPU
// without it (AVX2-only parts such as Zen 3 would die with SIGILL).
func requireAVX512F(t *testing.T) {
	t.Helper()
	if !hasAVX512F() {
		t.Skip("no AVX-512F on this CPU: the kernel cannot run here (packBF16 uses the Go path)")
	}
}

func FuzzRoundBF16Kernel(f *testing.F) {
	f.Add(uint32(0x3f808000), uint32(0x7f800001))
	f.Fuzz(func(t *testing.T, a, b uint32) {
		requireAVX512F(t)
		var src [16]float32
		for i := range src {
			src[i] = math.Float32frombits(a + uint32(i)*b)
		}
		var dst [8]uint32
		roundBF16AVX512(&dst[0], &src[0], len(src))
		for i, v := range src {
			require.Equal(t, roundBF16(v), uint16(dst[i/2]>>(16*(i%2))))
		}
	})
}
