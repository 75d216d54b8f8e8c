//go:build amd64 && !purego

package cpu

// useBF16FMA selects the AVX2 + FMA kernels of bf16_fma_amd64.s for BF16
// precision on CPUs without AVX512_BF16 (Zen 2/3, Intel client parts), where
// bf16FMAExact says they give the contract's bits. Tests may switch it off.
var useBF16FMA = !useBF16Asm && hasAVX2F16C() && hasFMA()

// bf16FMATakesInf: VFMADD231PS gives dpStep's infinities and default NaN
// (bf16_fma.go).
const bf16FMATakesInf = true

// hasFMA reports FMA3 (CPUID.1:ECX bit 12); hasAVX2F16C checks the YMM state.
func hasFMA() bool {
	_, _, c, _ := cpuid(1, 0)
	return c&(1<<12) != 0
}

// roundWidenBF16AVX2 is packBF16 (even rows) and widenBF16 in one pass of n > 0
// elements, a multiple of 16, returning the exponent floor (bf16_widen_amd64.s).
//
//go:noescape
func roundWidenBF16AVX2(dst *uint32, wide *float32, src *float32, n int) int

// roundWidenBF16 is packWideBF16's one-pass kernel here (n a multiple of 16).
func roundWidenBF16(dst *uint32, wide *float32, src *float32, n int) int {
	return roundWidenBF16AVX2(dst, wide, src, n)
}
