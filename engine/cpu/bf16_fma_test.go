//go:build (amd64 || arm64) && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// edgeBF16 draws bfloat16 bits that exercise the corners of VDPBF16PS: signed
// zeros, subnormals (DAZ), the smallest normals (products below float32's range,
// results that round into the subnormals: FTZ), huge values (products above
// float32's range), infinities and NaNs with payloads, and ordinary values.
func edgeBF16(r *rand.Rand) uint16 {
	sign := uint16(r.IntN(2)) << 15
	switch r.IntN(12) {
	case 0:
		return sign
	case 1:
		return sign | uint16(1+r.IntN(0x7f)) // subnormal
	case 2:
		return sign | uint16(0x0080+r.IntN(0x400)) // tiny normal
	case 3:
		return sign | uint16(0x7f00+r.IntN(0x80)) // huge
	case 4:
		return sign | 0x7f80 // infinity
	case 5:
		return sign | uint16(0x7f81+r.IntN(0x7f)) // NaN, quiet or signalling
	case 6:
		return sign | uint16(0x3f00+r.IntN(0x200)) // near 1: cancellations
	}
	return roundBF16(float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-20))))
}

// bf16Case is a matmul's operands: a rows × cols matrix, n tokens, bias, output.
type bf16Case struct {
	rows, cols, n int
	w             []uint16
	x             []float32
	bias          []float32
}

func newBF16Case(r *rand.Rand, rows, cols, n int, draw func(*rand.Rand) uint16) bf16Case {
	c := bf16Case{rows: rows, cols: cols, n: n, w: make([]uint16, rows*cols), x: make([]float32, n*cols), bias: make([]float32, rows)}
	for i := range c.w {
		c.w[i] = draw(r)
	}
	for i := range c.x { // activations as float32 with low bits, rounded in packBF16
		c.x[i] = math.Float32frombits(uint32(draw(r))<<16 | uint32(r.IntN(1<<16)))
	}
	for i := range c.bias {
		c.bias[i] = float32(r.NormFloat64())
	}
	return c
}

// fmaBF16 draws bfloat16 bits the FMA kernels take (bf16FMAExact): exponent
// fields from the floor 71 up to products beyond float32's range, mantissas
// that fill all 8 bits, signed zeros, infinities where bf16FMATakesInf (∞·0
// gives the default NaN), and values near 1 whose sums cancel.
func fmaBF16(r *rand.Rand) uint16 {
	sign := uint16(r.IntN(2)) << 15
	switch r.IntN(10) {
	case 0:
		return sign
	case 1:
		return sign | uint16(71+r.IntN(8))<<7 | uint16(r.IntN(0x80)) // at the floor
	case 2:
		return sign | uint16(190+r.IntN(64))<<7 | uint16(r.IntN(0x80)) // products overflow
	case 3:
		if r.IntN(8) == 0 && bf16FMATakesInf {
			return sign | 0x7f80
		}
	case 4, 5:
		return sign | uint16(0x3f00+r.IntN(0x200))
	}
	return sign | uint16(71+r.IntN(183))<<7 | uint16(r.IntN(0x80))
}

// bf16Outputs computes c's matmul panel by panel through bf16State.panel with the
// kernels the switches select, from an output pre-filled with small integers.
func bf16Outputs(c bf16Case, p *bf16Panels, bias []float32, acc bool) ([]float32, *bf16State) {
	s := &bf16State{}
	s.pack(nil, c.x, c.n, c.cols, 1)
	out := make([]float32, c.n*c.rows)
	for j := range out {
		out[j] = float32(j%7) - 3
	}
	part := make([]float32, c.n*panelRows)
	for panel := range p.panels() {
		s.panel(p, panel, c.n, out, bias, acc, part)
	}
	return out, s
}

// TestBF16FMAKernelsMatchGo holds the FMA kernels to the contract: the Go kernel's
// bits for every output, over values they take (every panel checked to have
// run them), over edge values where some panels must fall back (NaN, values
// below the floor), every token block (6, 4, 2, 1), partial panels, odd columns,
// k-blocked rows (1536 columns), with and without bias and accumulation.
func TestBF16FMAKernelsMatchGo(t *testing.T) {
	skipWithoutFMA(t)
	r := rand.New(rand.NewPCG(5, 8))
	draws := map[string]func(*rand.Rand) uint16{
		"normal": func(r *rand.Rand) uint16 { return roundBF16(float32(r.NormFloat64())) },
		"fma":    fmaBF16,
		"edge":   edgeBF16,
	}
	shapes := []struct{ rows, cols, n int }{
		{32, 2, 1}, {1, 1, 1}, {33, 7, 17}, {64, 576, 12}, {70, 63, 29}, {16, 300, 5}, {96, 1536, 13},
		{32, 40, 2}, {64, 258, 3}, {32, 31, 7}, {64, 130, 32},
	}
	for name, draw := range draws {
		for _, sh := range shapes {
			for _, mode := range []struct{ bias, acc bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				c := newBF16Case(r, sh.rows, sh.cols, sh.n, draw)
				for i, v := range c.x {
					if name == "fma" && v != v { // an infinity given low bits: keep it infinite
						c.x[i] = float32(math.Inf(int(math.Float32bits(v)>>31)*-2 + 1))
					}
				}
				p := newBF16Panels(&matrix{rows: c.rows, cols: c.cols, dtype: engine.BF16, u16: c.w}, nil)
				var bias []float32
				if mode.bias {
					bias = c.bias
				}
				setBF16FMA(t, true)
				fma, s := bf16Outputs(c, p, bias, mode.acc)
				if name != "edge" {
					for panel := range p.panels() {
						require.True(t, bf16FMAExact(p, panel, slices.Min(s.tokFloors)), "%s %dx%d: panel %d would not run the FMA kernels", name, c.rows, c.cols, panel)
					}
				}
				setBF16Go(t)
				gold, _ := bf16Outputs(c, p, bias, mode.acc)
				for j := range gold {
					a, g := math.Float32bits(fma[j]), math.Float32bits(gold[j])
					if a != g {
						require.Failf(t, "kernels differ", "%s %dx%d n=%d bias=%v acc=%v: token %d row %d: FMA %#08x, Go %#08x",
							name, c.rows, c.cols, c.n, mode.bias, mode.acc, j/c.rows, j%c.rows, a, g)
					}
				}
			}
		}
	}
}

// bf16Bits is a bfloat16 m·2^e for an integer 1 ≤ |m| ≤ 255 (exact).
func bf16Bits(m int, e int) uint16 { return roundBF16(float32(math.Ldexp(float64(m), e))) }

// TestBF16FMAFloor shows the floor at work on hand-derived chains (one row, one
// token, two pairs: odd0, even0, odd1, even1). At the floor (exponent fields
// 71 + 71) a cancellation lands exactly on the smallest normal 2⁻¹²⁶ both ways;
// below it a product 2⁻¹²⁷ is subnormal: the contract flushes it to +0, a fused
// multiply-add keeps it — so bf16FMAExact must rule that panel out, and does.
func TestBF16FMAFloor(t *testing.T) {
	skipWithoutFMA(t)
	for _, c := range []fmaChain{
		{[]uint16{bf16Bits(-254, -63), bf16Bits(255, -63), 0, 0}, []uint16{bf16Bits(1, -55), bf16Bits(255, -63), 0, 0}, 0x00800000, true, 0x00800000,
			"255²·2⁻¹²⁶ − 254·256·2⁻¹²⁶ = 2⁻¹²⁶"},
		{[]uint16{bf16Bits(-3, -50), bf16Bits(3, -50), 0, 0}, []uint16{bf16Bits(5, -50), bf16Bits(5, -50), 0, 0}, 0x00000000, true, 0x00000000,
			"p − p = +0"},
		{[]uint16{bf16Bits(1, -64), 0, 0, 0}, []uint16{bf16Bits(1, -63), 0, 0, 0}, 0x00000000, false, 0x00400000,
			"2⁻⁶⁴·2⁻⁶³ = 2⁻¹²⁷ flushed, which the kernel keeps: why the floor is needed"},
	} {
		requireFMAChain(t, c)
	}
}

// fmaChain is one row and one token, bfloat16 bits (w and x: even, odd, ...):
// want is the contract's result, exact whether the dispatch lets the FMA kernels
// take it, raw what the kernel gives on its own.
type fmaChain struct {
	w, x  []uint16
	want  uint32
	exact bool
	raw   uint32
	why   string
}

// requireFMAChain runs c through bf16Dot, the dispatch (bf16State.panel) and the
// raw kernel (bf16PanelFMA with nil floors).
func requireFMAChain(t *testing.T, c fmaChain) {
	t.Helper()
	require.Equal(t, c.want, math.Float32bits(bf16Dot(c.w, c.x)), c.why)
	wide := make([]float32, len(c.x))
	for i, h := range c.x {
		wide[i] = math.Float32frombits(uint32(h) << 16)
	}
	cs := bf16Case{rows: 1, cols: len(c.w), n: 1, w: c.w, x: wide}
	p := newBF16Panels(&matrix{rows: 1, cols: len(c.w), dtype: engine.BF16, u16: c.w}, nil)
	setBF16FMA(t, true)
	out, s := bf16Outputs(cs, p, nil, false)
	require.Equal(t, c.exact, bf16FMAExact(p, 0, slices.Min(s.tokFloors)), c.why)
	require.Equal(t, c.want, math.Float32bits(out[0]), c.why)
	part := make([]float32, panelRows)
	bf16PanelFMA(p, 0, s.x, s.xf, nil, 1, out, nil, false, part)
	require.Equal(t, c.raw, math.Float32bits(out[0]), c.why)
}

// TestBF16FMAFallsBackPerBlock gives one token of 13 an activation far under the
// floor (2⁻¹²⁰): only its token block (tokens 6–11) runs the Go kernel, in every
// panel, and every output keeps the contract's bits.
func TestBF16FMAFallsBackPerBlock(t *testing.T) {
	skipWithoutFMA(t)
	r := rand.New(rand.NewPCG(2, 4))
	normal := func(r *rand.Rand) uint16 { return roundBF16(float32(r.NormFloat64())) }
	for _, sh := range []struct{ rows, cols int }{{64, 576}, {40, 258}} {
		c := newBF16Case(r, sh.rows, sh.cols, 13, normal)
		c.x[7*c.cols+3] = float32(math.Ldexp(1, -120))
		p := newBF16Panels(&matrix{rows: c.rows, cols: c.cols, dtype: engine.BF16, u16: c.w}, nil)
		for _, acc := range []bool{false, true} {
			setBF16FMA(t, true)
			before := bf16FallbackBlocks.Load()
			fma, _ := bf16Outputs(c, p, c.bias, acc)
			require.Equal(t, int64(p.panels()), bf16FallbackBlocks.Load()-before, "one Go block per panel")
			setBF16Go(t)
			gold, _ := bf16Outputs(c, p, c.bias, acc)
			for j := range gold {
				require.Equal(t, math.Float32bits(gold[j]), math.Float32bits(fma[j]), "%dx%d acc=%v: token %d row %d", c.rows, c.cols, acc, j/c.rows, j%c.rows)
			}
		}
	}
}

// TestBF16FMAInfinities shows where infinities may meet the kernels, on hand-
// derived one-pair chains (w and x: even, odd). ∞·0 gives x86's default NaN
// 0xffc00000 from the contract, but FMLA gives ARM's 0x7fc00000: so the
// kernels take infinite inputs only where bf16FMATakesInf (amd64), and the
// dispatch runs the Go kernel there on arm64. A chain that overflows from
// finite inputs (2²⁰⁰ to +∞, then −2²⁰⁰) stays +∞ both ways on both: a fused
// multiply-add never forms an infinite product from finite inputs, so no bound
// on magnitudes is needed.
func TestBF16FMAInfinities(t *testing.T) {
	skipWithoutFMA(t)
	const inf = 0x7f80
	big := bf16Bits(1, 100)
	for _, c := range []fmaChain{
		{[]uint16{bf16Bits(1, 0), inf}, []uint16{bf16Bits(1, 0), 0}, defaultNaN, bf16FMATakesInf, fmaInvalidNaN,
			"∞·0 (an infinite weight) is invalid, then NaN + 1·1 carries it"},
		{[]uint16{0, 0}, []uint16{bf16Bits(3, 0), inf | 0x8000}, defaultNaN, bf16FMATakesInf, fmaInvalidNaN,
			"0·−∞ (an infinite activation) is invalid"},
		{[]uint16{big | 0x8000, big}, []uint16{big, big}, 0x7f800000, true, 0x7f800000,
			"2²⁰⁰ overflows to +∞, + −2²⁰⁰ stays +∞"},
	} {
		requireFMAChain(t, c)
	}
}

// TestBF16FMAForwardMatchesGo runs the invariance models in BF16 precision with
// the FMA kernels and with the Go kernel: bit-identical outputs.
func TestBF16FMAForwardMatchesGo(t *testing.T) {
	skipWithoutFMA(t)
	requireBF16ForwardMatchesGo(t, func(t testing.TB) { setBF16FMA(t, true) })
}

// requireBF16ForwardMatchesGo runs the invariance models in BF16 precision through
// a prefill and greedy decode with the kernels fast selects and with the Go kernel
// (setBF16Go): bit-identical outputs.
func requireBF16ForwardMatchesGo(t *testing.T, fast func(testing.TB)) {
	for name, spec := range invarianceSpecs {
		t.Run(name, func(t *testing.T) {
			m := buildModel(t, spec)
			prompt := randomIDs(rand.New(rand.NewPCG(7, 11)), 29, m.Config.VocabSize)
			opts := engine.Options{MaxSeqLen: 40, MetricLayer: -1, Threads: 2, MatmulPrecision: engine.MatmulBF16}
			fast(t)
			got := reference(t, m, prompt, opts)
			setBF16Go(t)
			require.Equal(t, reference(t, m, prompt, opts), got)
		})
	}
}

// TestPackWideBF16MatchesGo holds the one-pass AVX2 or NEON packing to packBF16 +
// widenBF16: the same pairs, floats and exponent floor, on roundBF16's hand-
// derived cases, random values over many decades, NaN, and lengths around 16.
func TestPackWideBF16MatchesGo(t *testing.T) {
	if !useSIMD && !useNEON {
		t.Skip("no AVX2 (amd64) or NEON (arm64) kernels here: packWideBF16 packs in Go")
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
