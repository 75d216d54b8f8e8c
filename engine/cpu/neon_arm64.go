//go:build arm64 && !purego

package cpu

// useNEON selects the AdvSIMD kernels of neon_arm64.s (dot, dotBF16, dotF16,
// axpy, the F16 widening, the matmul block) and attn_neon_arm64.s (attention scores and weighted
// sums). AdvSIMD is part of every ARMv8-A core Go runs on; the kernels give the
// Go lane kernels' bits (TestNEONKernelsMatchGo, run under qemu-user on amd64),
// so the choice changes speed only. Tests may switch it off.
var useNEON = true

// The dot kernels take n > 0, a multiple of dotLanes; axpyNEON a multiple of 16.

//go:noescape
func dotF32NEON(w *float32, x *float32, n int) float32

//go:noescape
func dotBF16NEON(w *uint16, x *float32, n int) float32

//go:noescape
func dotF16NEON(w *uint16, x *float32, n int) float32

//go:noescape
func axpyNEON(y *float32, a float32, x *float32, n int)

// decodeF16NEON widens n (a multiple of 16) IEEE halves exactly.
//
//go:noescape
func decodeF16NEON(dst *float32, src *uint16, n int)

// dotF32x8NEON is dotF32x8AVX2 on NEON (neon_arm64.s), part its scratch.
//
//go:noescape
func dotF32x8NEON(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32, part *[64]float32)

// groupScores64NEON is groupScores64AVX2 on NEON (attn_neon_arm64.s), in
// blocks of 4 keys; groupScores says what it computes.
//
//go:noescape
func groupScores64NEON(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)

// groupScores128NEON is groupScores64NEON for head dim 128.
//
//go:noescape
func groupScores128NEON(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)

// weightedSumGroup32NEON runs one or two heads' weighted sums over 32 elements
// (attn_neon_arm64.s); addWeightedValues says what it computes.
//
//go:noescape
func weightedSumGroup32NEON(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int)

// swigluNEON and expSubNEON are swigluAVX2 and expSubAVX2 on NEON
// (expf_arm64.s): n is a multiple of 4, and they return how many they did.
//
//go:noescape
func swigluNEON(gate *float32, up *float32, n int) int

//go:noescape
func expSubNEON(s *float32, m float32, n int) int

// The softmax passes on NEON (softmax_arm64.s): maxAVX2, sumsF64 and
// scaleF64AVX2 for arm64; softmaxRows says what they compute. maxNEON and
// scaleF64NEON take a multiple of 4.

//go:noescape
func maxNEON(s *float32, n int) (m float32, ordered bool)

//go:noescape
func sumsF64(s0, s1, s2, s3 *float32, n int, z *[4]float64)

//go:noescape
func scaleF64NEON(s *float32, inv float64, n int)
