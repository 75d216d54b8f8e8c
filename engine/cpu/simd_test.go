package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// TestSIMDForwardMatchesGo runs the invariance models through a prefill and greedy
// decode with the assembly kernels this CPU has (AVX-512 where present, AVX2 alone,
// NEON on arm64) and with the Go kernels: every logit, score and statistic must be
// bit-identical.
func TestSIMDForwardMatchesGo(t *testing.T) {
	if !hasSIMDKernels() {
		t.Skip("no assembly kernels for this CPU or build: only the Go kernels run here")
	}
	for name, spec := range invarianceSpecs {
		t.Run(name, func(t *testing.T) {
			m := buildModel(t, spec)
			prompt := randomIDs(rand.New(rand.NewPCG(7, 11)), 13, m.Config.VocabSize)
			opts := engine.Options{MaxSeqLen: 32, MetricLayer: -1, Threads: 2}
			setSIMD(t, true)
			simd := reference(t, m, prompt, opts)
			setAVX2Only(t) // as on CPUs without AVX-512 (a no-op off amd64)
			avx2 := reference(t, m, prompt, opts)
			setSIMD(t, false)
			generic := reference(t, m, prompt, opts)
			require.Equal(t, generic, simd)
			require.Equal(t, generic, avx2)
		})
	}
}

// randF16 draws half bits: mostly normal values around ±1, some subnormals and zeros.
func randF16(r *rand.Rand) uint16 {
	switch r.IntN(8) {
	case 0:
		return uint16(r.IntN(0x400)) | uint16(r.IntN(2))<<15 // subnormal or ±0
	default:
		return engine.F32ToF16(float32(r.NormFloat64()))
	}
}

// TestSIMDKernelsMatchGo checks that the assembly kernels (where the CPU runs
// them) and the Go lane kernels give identical bits, and that the dtype variants
// agree with dot on the widened weights, for lengths around the lane count.
func TestSIMDKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 63, 64, 100, 576, 1536, 1537} {
		for range 20 {
			x := make([]float32, n)
			wf := make([]float32, n)
			wb := make([]uint16, n)
			wh := make([]uint16, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4)))
				wb[i] = engine.F32ToBF16(float32(r.NormFloat64() * 0.05))
				wh[i] = randF16(r)
				wf[i] = float32(r.NormFloat64())
			}
			wbf := make([]float32, n)
			decodeBF16(wbf, wb)
			whf := make([]float32, n)
			decodeF16(whf, wh)
			for i := range wh { // the table is the reference widening
				if math.Float32bits(whf[i]) != math.Float32bits(engine.F16ToF32(wh[i])) {
					t.Fatalf("decodeF16(%#04x) = %g, want %g", wh[i], whf[i], engine.F16ToF32(wh[i]))
				}
				if math.Float32bits(wbf[i]) != uint32(wb[i])<<16 {
					t.Fatalf("decodeBF16(%#04x) = %g", wb[i], wbf[i])
				}
			}
			got := [][3]float32{{dot(wf, x), dotBF16(wb, x), dotF16(wh, x)}}
			want := [3]float32{dot(wf, x), dot(wbf, x), dot(whf, x)}
			if useSIMD || useNEON {
				setSIMD(t, false)
				got = append(got, [3]float32{dot(wf, x), dotBF16(wb, x), dotF16(wh, x)})
				var wbg, whg = make([]float32, n), make([]float32, n)
				decodeBF16(wbg, wb)
				decodeF16(whg, wh)
				for i := range wbg {
					if math.Float32bits(wbg[i]) != math.Float32bits(wbf[i]) || math.Float32bits(whg[i]) != math.Float32bits(whf[i]) {
						t.Fatalf("n=%d: Go and SIMD widening differ at %d", n, i)
					}
				}
				setSIMD(t, true)
			}
			for k, g := range got {
				for j := range g {
					if math.Float32bits(g[j]) != math.Float32bits(want[j]) {
						t.Fatalf("n=%d kernel %d variant %d: %g (%#08x), want %g (%#08x)",
							n, j, k, g[j], math.Float32bits(g[j]), want[j], math.Float32bits(want[j]))
					}
				}
			}
		}
	}
	// The Go kernel's order, spelled out once more on a small case.
	x := make([]float32, 70)
	w := make([]float32, 70)
	for i := range x {
		x[i], w[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	var acc [dotLanes]float32
	for i := 0; i < 64; i++ {
		acc[i%dotLanes] += float32(w[i] * x[i])
	}
	s := reduceLanes(&acc)
	for i := 64; i < 70; i++ {
		s += float32(w[i] * x[i])
	}
	if math.Float32bits(dot(w, x)) != math.Float32bits(s) {
		t.Fatalf("dot = %g, want %g", dot(w, x), s)
	}
}

// TestDot4MatchesDot checks the four-token kernel against four dot calls.
func TestDot4MatchesDot(t *testing.T) {
	t.Logf("SIMD kernels: AVX2 %v, AVX-512 %v", useSIMD, useAVX512)
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 31, 32, 33, 64, 95, 96, 160, 576, 1537} {
		for _, pad := range []int{0, 5} {
			stride := n + pad
			w := make([]float32, n)
			x := make([]float32, 3*stride+n)
			for i := range w {
				w[i] = float32(r.NormFloat64())
			}
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
			}
			var s [4]float32
			dot4(w, x, stride, &s)
			for k := range s {
				if want := dot(w, x[k*stride:k*stride+n]); math.Float32bits(s[k]) != math.Float32bits(want) {
					t.Fatalf("n=%d stride=%d token %d: %g, want %g", n, stride, k, s[k], want)
				}
			}
		}
	}
}

// TestAxpyMatchesGo checks the SIMD axpy against the Go loop, element by element.
func TestAxpyMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 7, 8, 9, 64, 100} {
		x := make([]float32, n)
		y := make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		a := float32(r.Float64())
		got := append([]float32(nil), y...)
		axpy(got, a, x)
		for i := range y {
			if want := y[i] + float32(a*x[i]); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("n=%d: y[%d] = %g, want %g", n, i, got[i], want)
			}
		}
	}
}

// TestDot2xKMatchesDot checks the two-row block kernels (four tokens: dot2x4;
// six: dot2x6) against dot, on plain values and (pad 3) on ±0, infinities,
// subnormals and NaNs of distinct payloads in the activations, whose bits show
// the order of every operation.
func TestDot2xKMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	special := []float32{float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800123), math.Float32frombits(0x00000042)}
	kernels := map[int]func(w []float32, ws int, x []float32, xs int, s *[12]float32){
		4: func(w []float32, ws int, x []float32, xs int, s *[12]float32) {
			dot2x4(w, ws, x, xs, (*[8]float32)(s[:8]))
		},
		6: dot2x6,
	}
	for tokens, kernel := range kernels {
		for _, n := range []int{1, 31, 32, 33, 64, 95, 96, 160, 576, 1537} {
			for _, pad := range []int{0, 5, 3} {
				xs, ws := n+pad, n+2*pad
				w := make([]float32, ws+n)
				x := make([]float32, (tokens-1)*xs+n)
				for i := range w {
					w[i] = float32(r.NormFloat64())
				}
				for i := range x {
					x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
					if pad == 3 && r.IntN(50) == 0 {
						x[i] = special[r.IntN(len(special))]
					}
				}
				var s [12]float32
				kernel(w, ws, x, xs, &s)
				for j := range 2 {
					for k := range tokens {
						want := dot(w[j*ws:j*ws+n], x[k*xs:k*xs+n])
						if got := s[tokens*j+k]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("%d tokens, n=%d pad=%d row %d token %d: %g, want %g", tokens, n, pad, j, k, got, want)
						}
					}
				}
			}
		}
	}
}
