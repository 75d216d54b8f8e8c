//go:build amd64 && !purego

package cpu

// useSIMD selects the AVX2 kernels of simd_amd64.s. They give the same bits as the
// Go lane kernels in dot.go (see TestSIMDKernelsMatchGo), so the choice changes
// speed only. Tests may switch it off to run the Go kernels.
var useSIMD = hasAVX2F16C()

// useAVX512 also selects dotF32x4AVX512 and dotF32x8AVX512 for groups of four
// tokens in the tiled matmul (same bits as separate dot calls; it needs AVX-512F
// and the OS saving ZMM state).
var useAVX512 = useSIMD && hasAVX512F()

// hasAVX2F16C reports whether the CPU has AVX2 and F16C and the OS saves YMM state.
func hasAVX2F16C() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx, f16c = 1 << 27, 1 << 28, 1 << 29
	if c1&osxsave == 0 || c1&avx == 0 || c1&f16c == 0 {
		return false
	}
	if xgetbv0()&6 != 6 { // XMM and YMM state enabled by the OS
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}

// hasAVX512F reports AVX-512 Foundation with opmask and ZMM state enabled by the OS.
func hasAVX512F() bool {
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 || xgetbv0()&0xe6 != 0xe6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<16) != 0
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)
func xgetbv0() uint32

// The kernels take n > 0 elements, a multiple of dotLanes (dot) or 8 (decode).

//go:noescape
func dotF32AVX2(w *float32, x *float32, n int) float32

//go:noescape
func dotBF16AVX2(w *uint16, x *float32, n int) float32

//go:noescape
func dotF16AVX2(w *uint16, x *float32, n int) float32

//go:noescape
func decodeBF16AVX2(dst *float32, src *uint16, n int)

//go:noescape
func decodeF16AVX2(dst *float32, src *uint16, n int)

//go:noescape
func dotF32x4AVX512(w *float32, x *float32, stride int, n int, out *[4]float32)

//go:noescape
func axpyAVX2(y *float32, a float32, x *float32, n int)

//go:noescape
func dotF32x8AVX512(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32)

// dotBF16EvenOddAVX512 sets out[r] to the lane part of the dot of bfloat16 row r
// (w + r·stride) with x, given xp = evenOddX(x): the bits of dotBF16AVX2.
//
// dotF32x8AVX2 is dotF32x8AVX512 on AVX2 alone (gemm_amd64.s): the same eight
// lane parts, bit for bit.
//
//go:noescape
func dotF32x8AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32)

// dotF32x12AVX2 is dotF32x8AVX2 for two rows and six tokens (gemm_amd64.s).
//
//go:noescape
func dotF32x12AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[12]float32)

//go:noescape
func dotBF16EvenOddAVX512(w *uint16, stride int, xp *float32, n int, rows int, out *float32)

// weightedSumAVX2 continues one head's weighted sums of values, m elements (a
// multiple of 32) over n > 0 positions, from what out holds (wsum_amd64.s);
// weightedSum and addWeightedValues say what they compute.
//
//go:noescape
func weightedSumAVX2(out *float32, p *float32, v *float32, stride int, n int, m int)
