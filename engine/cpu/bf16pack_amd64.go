//go:build amd64 && !purego

package cpu

// packBF16AVX512 rounds n floats (a multiple of 16) to packed bfloat16 pairs
// (bf16pack_amd64.s); it needs AVX512_BF16 (useBF16Asm).
//
//go:noescape
func packBF16AVX512(dst *uint32, x *float32, n int)
