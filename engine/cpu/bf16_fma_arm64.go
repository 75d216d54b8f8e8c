//go:build arm64 && !purego

package cpu

// useBF16FMA selects the AdvSIMD kernels of bf16_fma_arm64.s for BF16 precision
// (every arm64 core has AdvSIMD and FMLA), where bf16FMAExact says they give
// the contract's bits. Tests may switch it off.
var useBF16FMA = true

// bf16FMATakesInf is false: ∞·0 gives the ARM default NaN 0x7fc00000, not
// dpNaN's, so infinite inputs run the Go kernel (bf16_fma.go).
const bf16FMATakesInf = false

// roundWidenBF16NEON is packBF16 (even rows) and widenBF16 in one pass of n > 0
// elements, a multiple of 8, returning the exponent floor (bf16_fma_arm64.s).
//
//go:noescape
func roundWidenBF16NEON(dst *uint32, wide *float32, src *float32, n int) int

// roundWidenBF16 is packWideBF16's one-pass kernel here (n a multiple of 16).
func roundWidenBF16(dst *uint32, wide *float32, src *float32, n int) int {
	return roundWidenBF16NEON(dst, wide, src, n)
}
