//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// setBF16FMA switches the FMA kernels on (and the AVX512_BF16 ones off, so that
// they are what runs even on a CPU that has both) or off for the rest of the test.
func setBF16FMA(t testing.TB, on bool) {
	oldFMA, oldAsm := useBF16FMA, useBF16Asm
	useBF16FMA = on && hasAVX2F16C() && hasFMA()
	if on {
		useBF16Asm = false
	}
	t.Cleanup(func() { useBF16FMA, useBF16Asm = oldFMA, oldAsm })
}

// setBF16Go leaves BF16 precision to the Go kernel for the rest of the test.
func setBF16Go(t testing.TB) {
	setBF16FMA(t, false)
	useBF16Asm = false
}

// fmaInvalidNaN is what VFMADD231PS returns for ∞·0: the x86 default NaN, as
// dpNaN gives.
const fmaInvalidNaN = defaultNaN

func skipWithoutFMA(t *testing.T) {
	if !hasAVX2F16C() || !hasFMA() {
		t.Skip("no AVX2 + FMA on this CPU: the FMA kernels cannot run here")
	}
}

// TestPackWideBF16MatchesGo holds the one-pass AVX2 packing to packBF16 +
// widenBF16: the same pairs, floats and exponent floor, on roundBF16's hand-
// derived cases, random values over many decades, NaN, and lengths around 16.
func TestPackWideBF16MatchesGo(t *testing.T) {
	if !hasAVX2F16C() {
		t.Skip("no AVX2 on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, size := range []struct{ n, cols int }{{1, 16}, {1, 32}, {3, 18}, {2, 7}, {5, 64}, {1, 2}, {4, 576}} {
		for trial := range 20 {
			x := make([]float32, size.n*size.cols)
			for i := range x {
				switch {
				case trial == 0:
					x[i] = math.Float32frombits(roundBF16Cases[i%len(roundBF16Cases)].in)
				case trial == 1 && i%5 == 0:
					x[i] = float32(math.NaN())
				default:
					x[i] = math.Float32frombits(uint32(edgeBF16(r))<<16 | uint32(r.IntN(1<<16)))
				}
			}
			k2 := (size.cols + 1) / 2
			gotX, gotW := make([]uint32, size.n*k2), make([]float32, 2*size.n*k2)
			got := packWideBF16(gotX, gotW, x, size.n, size.cols)
			wantX, wantW := make([]uint32, size.n*k2), make([]float32, 2*size.n*k2)
			packBF16(wantX, x, size.n, size.cols)
			want := widenBF16(wantW, wantX)
			require.Equal(t, wantX, gotX, "%v trial %d", size, trial)
			for i := range wantW {
				require.Equal(t, math.Float32bits(wantW[i]), math.Float32bits(gotW[i]), "%v trial %d wide %d", size, trial, i)
			}
			require.Equal(t, want, got, "%v trial %d floor", size, trial)
		}
	}
}
