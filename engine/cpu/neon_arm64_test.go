//go:build arm64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// setSIMD switches the NEON kernels on or off for the rest of the test.
func setSIMD(t testing.TB, on bool) {
	old := useNEON
	useNEON = on
	t.Cleanup(func() { useNEON = old })
}

// hasSIMDKernels is true: every arm64 core Go runs on has AdvSIMD.
func hasSIMDKernels() bool { return true }

// TestNEONKernelsMatchGo checks the NEON dot, dotBF16 and axpy kernels against
// the Go lane kernels bit for bit, on plain values (where any change of order
// shows), on values over eight decades, and with ±0 and subnormals in the
// activations plus one infinity or NaN (with a payload) per vector: where two
// NaNs meet, which payload survives depends on operand order, and the Go
// compiler treats a float addition as commutative. On amd64 it runs under
// qemu-user: GOARCH=arm64 go test -c, then qemu-aarch64-static ./cpu.test.
func TestNEONKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	special := []float32{float32(math.Copysign(0, -1)), 0, math.Float32frombits(0x00000042), math.Float32frombits(0x80400000)}
	oneOff := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800123)}
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 64, 100, 576, 1537} {
		for _, kind := range []string{"plain", "decades", "special"} {
			x := make([]float32, n)
			wf := make([]float32, n)
			wb := make([]uint16, n)
			y := make([]float32, n)
			for i := range x {
				x[i], wf[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
				switch {
				case kind == "decades":
					x[i] *= float32(math.Pow(10, float64(r.IntN(9)-4)))
				case kind == "special" && r.IntN(20) == 0:
					x[i] = special[r.IntN(len(special))]
				}
				wb[i] = engine.F32ToBF16(float32(r.NormFloat64()))
			}
			if kind == "special" {
				x[r.IntN(n)] = oneOff[r.IntN(len(oneOff))]
			}
			a := float32(r.NormFloat64())
			run := func(neon bool) (d, db float32, ax []float32) {
				setSIMD(t, neon)
				ax = append([]float32(nil), y...)
				axpy(ax, a, x)
				return dot(wf, x), dotBF16(wb, x), ax
			}
			d1, db1, ax1 := run(true)
			d0, db0, ax0 := run(false)
			require.Equal(t, math.Float32bits(d0), math.Float32bits(d1), "dot n=%d %s", n, kind)
			require.Equal(t, math.Float32bits(db0), math.Float32bits(db1), "dotBF16 n=%d %s", n, kind)
			require.Equal(t, bitsOf(ax0), bitsOf(ax1), "axpy n=%d %s", n, kind)
		}
	}
}
