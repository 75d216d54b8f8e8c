//go:build amd64 && !purego

#include "textflag.h"

// func roundBF16AVX512(dst *uint32, src *float32, n int)
// The 16-bit halves of dst, low half first, get roundBF16(src[i]) for n > 0
// elements, a multiple of 16: bf16.go's rule (round to nearest even; a zero or
// subnormal becomes a zero of its sign; a NaN keeps its top bits and is made
// quiet) in AVX-512F integer operations, so it needs no AVX512_BF16.
TEXT ·roundBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z20 // |b| mask
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z21 // exponent mask, and +Inf's |b|
	MOVL $0x7fff, AX
	VPBROADCASTD AX, Z22 // rounding bias below a tie
	MOVL $1, AX
	VPBROADCASTD AX, Z23
	MOVL $0x40, AX
	VPBROADCASTD AX, Z24 // the quiet bit of a bfloat16 NaN
	MOVL $0x8000, AX
	VPBROADCASTD AX, Z25 // the sign of a bfloat16

loop:
	VMOVDQU32 (SI), Z0
	VPSRLD    $16, Z0, Z1          // hi = b >> 16
	VPANDD    Z23, Z1, Z2          // hi & 1: round half to even
	VPADDD    Z22, Z0, Z3
	VPADDD    Z2, Z3, Z3
	VPSRLD    $16, Z3, Z3          // (b + 0x7fff + (hi&1)) >> 16
	VPANDD    Z20, Z0, Z4
	VPCMPUD   $6, Z21, Z4, K1      // |b| > +Inf bits: NaN
	VPORD     Z24, Z1, K1, Z3      // NaN lanes: hi | 0x40
	VPTESTNMD Z21, Z0, K2          // exponent 0: zero or subnormal
	VPANDD    Z25, Z1, K2, Z3      // those lanes: hi & 0x8000
	VPMOVDW   Z3, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	SUBQ      $16, CX
	JNZ       loop
	VZEROUPPER
	RET
