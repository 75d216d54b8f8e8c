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

// TestNEONKernelsMatchGo checks the NEON dot, dotBF16, dotF16, axpy and F16
// widening kernels against the Go ones bit for bit (F16 weights with
// subnormals and zeros), on plain values (where any change of order
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
			wh := make([]uint16, n)
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
				wh[i] = randF16(r)
			}
			if kind == "special" {
				x[r.IntN(n)] = oneOff[r.IntN(len(oneOff))]
			}
			a := float32(r.NormFloat64())
			run := func(neon bool) (d, db, dh float32, ax, wide []float32) {
				setSIMD(t, neon)
				ax = append([]float32(nil), y...)
				axpy(ax, a, x)
				wide = make([]float32, n)
				decodeF16(wide, wh)
				return dot(wf, x), dotBF16(wb, x), dotF16(wh, x), ax, wide
			}
			d1, db1, dh1, ax1, wide1 := run(true)
			d0, db0, dh0, ax0, wide0 := run(false)
			require.Equal(t, math.Float32bits(d0), math.Float32bits(d1), "dot n=%d %s", n, kind)
			require.Equal(t, math.Float32bits(db0), math.Float32bits(db1), "dotBF16 n=%d %s", n, kind)
			require.Equal(t, math.Float32bits(dh0), math.Float32bits(dh1), "dotF16 n=%d %s", n, kind)
			require.Equal(t, bitsOf(wide0), bitsOf(wide1), "decodeF16 n=%d", n)
			require.Equal(t, bitsOf(ax0), bitsOf(ax1), "axpy n=%d %s", n, kind)
		}
	}
}

// TestNEONAttentionKernelsMatchGo is a property test of the NEON attention
// kernels against the Go definitions spelled out here (not through dot and
// axpy, which run NEON too): on random shapes — head dims 64 and 128, 1-5
// heads, key counts that leave 0-3 keys to the tail, strides wider than a
// head — groupScores must give dotF32Lanes(q_g, k_j)·scale, and
// addWeightedValues must continue each element's chain from what out held,
// out + float32(p·v) position by position, bit for bit. Half the draws use
// N(0,1) values (where any change of order shows), half attnValue's eight
// decades, ±0, subnormals and overflowing products.
func TestNEONAttentionKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for draw := range 200 {
		hd := []int{64, 128}[draw%2]
		heads, n := 1+r.IntN(5), 1+r.IntN(70)
		kstride := hd * (1 + r.IntN(3))
		value := attnValue
		if draw%4 < 2 {
			value = func(r *rand.Rand) float32 { return float32(r.NormFloat64()) }
		}
		fill := func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = value(r)
			}
			return v
		}
		q, k := fill(heads*hd), fill((n-1)*kstride+hd)
		scale := float32(1 / math.Sqrt(float64(hd)))
		sstride := n + r.IntN(3)
		want := make([]float32, heads*sstride)
		for g := range heads {
			for j := range n {
				want[g*sstride+j] = dotF32Lanes(q[g*hd:(g+1)*hd], k[j*kstride:j*kstride+hd]) * scale
			}
		}
		got := make([]float32, len(want))
		groupScores(got, sstride, n, q, heads, hd, k, kstride, scale)
		require.Equal(t, bitsOf(want), bitsOf(got), "scores draw %d: heads=%d hd=%d n=%d", draw, heads, hd, n)

		wd := []int{32, 64, 128}[r.IntN(3)]
		vstride := wd * (1 + r.IntN(3))
		v, out := fill((n-1)*vstride+wd), fill(heads*wd)
		p := make([]float32, heads*sstride)
		for i := range p {
			p[i] = float32(r.Float64())
		}
		wantOut := append([]float32(nil), out...)
		for g := range heads {
			for i := range wd {
				o := wantOut[g*wd+i]
				for j := range n {
					o += float32(p[g*sstride+j] * v[j*vstride+i])
				}
				wantOut[g*wd+i] = o
			}
		}
		require.True(t, canAddWeightedValues(wd))
		addWeightedValues(out, p, sstride, heads, wd, v, vstride, n)
		require.Equal(t, bitsOf(wantOut), bitsOf(out), "weighted sums draw %d: heads=%d hd=%d n=%d", draw, heads, wd, n)
	}
}

// TestMaxNEONReportsOrder checks maxNEON directly, since softmaxRows' bits
// would hide a kernel that always sent its rows to Go: without NaN it gives
// Go's max and ordered; a NaN anywhere makes it unordered.
func TestMaxNEONReportsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, n := range []int{4, 8, 12, 64, 100} {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.NormFloat64() * 10)
		}
		want := s[0]
		for _, v := range s {
			want = max(want, v)
		}
		m, ordered := maxNEON(&s[0], n)
		require.True(t, ordered, "n=%d", n)
		require.Equal(t, math.Float32bits(want), math.Float32bits(m), "n=%d", n)
		for _, at := range []int{0, n / 2, n - 1} {
			old := s[at]
			s[at] = float32(math.NaN())
			_, ordered = maxNEON(&s[0], n)
			require.False(t, ordered, "n=%d, NaN at %d", n, at)
			s[at] = old
		}
	}
}
