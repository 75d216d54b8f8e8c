//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// setBF16Asm switches the AVX512_BF16 kernels on or off for the rest of the test.
func setBF16Asm(t testing.TB, on bool) {
	old := useBF16Asm
	useBF16Asm = on && hasAVX512BF16()
	t.Cleanup(func() { useBF16Asm = old })
}

// TestBF16KernelMatchesHardware checks the contract of bf16.go on this CPU: the
// VDPBF16PS kernels and the Go kernel give the same bits for every output, over
// random values and edge cases, odd shapes (partial panels, odd columns, every
// token block), with and without bias and accumulation.
func TestBF16KernelMatchesHardware(t *testing.T) {
	if !hasAVX512BF16() {
		t.Skip("no AVX512_BF16 on this CPU: only the Go kernel runs here")
	}
	r := rand.New(rand.NewPCG(3, 5))
	draws := map[string]func(*rand.Rand) uint16{
		"normal": func(r *rand.Rand) uint16 { return roundBF16(float32(r.NormFloat64())) },
		"edge":   edgeBF16,
	}
	shapes := []struct{ rows, cols, n int }{
		{32, 2, 1}, {1, 1, 1}, {33, 7, 17}, {64, 576, 12}, {70, 63, 29}, {16, 300, 5}, {96, 1536, 13},
	}
	for name, draw := range draws {
		for _, s := range shapes {
			for _, mode := range []struct{ bias, acc bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				c := newBF16Case(r, s.rows, s.cols, s.n, draw)
				p := newBF16Panels(&matrix{rows: c.rows, cols: c.cols, dtype: engine.BF16, u16: c.w}, nil)
				var bias []float32
				if mode.bias {
					bias = c.bias
				}
				outs := make([][]float32, 2)
				for i, asm := range []bool{true, false} {
					setBF16Asm(t, asm)
					out := make([]float32, c.n*c.rows)
					for j := range out {
						out[j] = float32(j%7) - 3
					}
					xp := make([]uint32, c.n*p.k2)
					packBF16(xp, c.x, c.n, c.cols)
					part := make([]float32, c.n*panelRows)
					for panel := range p.panels() {
						bf16Panel(p, panel, xp, c.n, out, bias, mode.acc, part)
					}
					outs[i] = out
				}
				for j := range outs[0] {
					a, g := math.Float32bits(outs[0][j]), math.Float32bits(outs[1][j])
					if a != g {
						tok, row := j/c.rows, j%c.rows
						xb := make([]uint16, c.cols)
						for i := range xb {
							xb[i] = roundBF16(c.x[tok*c.cols+i])
						}
						require.Failf(t, "kernels differ", "%s %dx%d n=%d bias=%v acc=%v: token %d row %d: asm %#08x, Go %#08x\nw=%04x\nx=%04x",
							name, c.rows, c.cols, c.n, mode.bias, mode.acc, tok, row, a, g, c.w[row*c.cols:(row+1)*c.cols], xb)
					}
				}
			}
		}
	}
}

// TestBF16ForwardMatchesGo runs the invariance models in BF16 precision through a
// prefill and greedy decode with the VDPBF16PS kernels and with the Go kernel
// (what -tags purego and CPUs without AVX512_BF16 run): bit-identical outputs.
func TestBF16ForwardMatchesGo(t *testing.T) {
	if !hasAVX512BF16() {
		t.Skip("no AVX512_BF16 on this CPU: only the Go kernel runs here")
	}
	requireBF16ForwardMatchesGo(t, func(t testing.TB) { setBF16Asm(t, true) })
}
