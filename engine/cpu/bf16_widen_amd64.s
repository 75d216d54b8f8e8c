//go:build amd64 && !purego

#include "textflag.h"

DATA widenc<>+0(SB)/4, $0x7fffffff  // |b| mask
DATA widenc<>+4(SB)/4, $0x7f800000  // exponent mask, and +Inf's |b|
DATA widenc<>+8(SB)/4, $0x7fff      // rounding bias below a tie; a bfloat16's |h| mask
DATA widenc<>+12(SB)/4, $1
DATA widenc<>+16(SB)/4, $0x40       // the quiet bit of a bfloat16 NaN
DATA widenc<>+20(SB)/4, $0x8000     // the sign of a bfloat16
DATA widenc<>+24(SB)/4, $0xff       // an exponent field
GLOBL widenc<>(SB), RODATA|NOPTR, $28

// ROUND(x, hi, t, r, m) sets r's dwords to roundBF16 of x's (bf16.go's rule, as
// roundBF16AVX512) and ORs x's NaN lanes into Y7; hi, t, m are scratch.
#define ROUND(x, hi, t, r, m) \
	VPSRLD $16, x, hi; \
	VPAND Y12, hi, t; \
	VPADDD Y13, x, r; \
	VPADDD t, r, r; \
	VPSRLD $16, r, r; \
	VPOR Y11, hi, t; \
	VPAND Y15, x, m; \
	VPCMPGTD Y14, m, m; \
	VPOR m, Y7, Y7; \
	VPBLENDVB m, t, r, r; \
	VPAND Y14, x, m; \
	VPCMPEQD Y6, m, m; \
	VPAND Y10, hi, t; \
	VPBLENDVB m, t, r, r

// FLOOR(r, t, m) folds r's bfloat16 exponent fields into Y8 (unsigned min), a
// zero's as all ones (it bounds nothing; an infinity's field is 255).
#define FLOOR(r, t, m) \
	VPSRLD $7, r, t; \
	VPAND Y9, t, t; \
	VPAND Y13, r, m; \
	VPCMPEQD Y6, m, m; \
	VPOR m, t, t; \
	VPMINUD t, Y8, Y8

// func roundWidenBF16AVX2(dst *uint32, wide *float32, src *float32, n int) int
// For n > 0 elements, a multiple of 16: the 16-bit halves of dst (low half
// first) get roundBF16(src[i]), wide[i] the same value as a float32, and the
// result is their exponent floor (bf16ExpFloor from 255; rounded values are
// never subnormal), bf16NoFMA if any is NaN.
TEXT ·roundWidenBF16AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ wide+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VPBROADCASTD widenc<>+0(SB), Y15
	VPBROADCASTD widenc<>+4(SB), Y14
	VPBROADCASTD widenc<>+8(SB), Y13
	VPBROADCASTD widenc<>+12(SB), Y12
	VPBROADCASTD widenc<>+16(SB), Y11
	VPBROADCASTD widenc<>+20(SB), Y10
	VPBROADCASTD widenc<>+24(SB), Y9
	VMOVDQU Y9, Y8 // the floor starts at 255
	VPXOR Y7, Y7, Y7
	VPXOR Y6, Y6, Y6

loop:
	VMOVDQU (SI), Y0
	ROUND(Y0, Y1, Y2, Y3, Y4)
	VPSLLD $16, Y3, Y5
	VMOVDQU Y5, (R8)
	FLOOR(Y3, Y2, Y4)
	VMOVDQU 32(SI), Y0
	ROUND(Y0, Y1, Y2, Y5, Y4)
	VPSLLD $16, Y5, Y1
	VMOVDQU Y1, 32(R8)
	FLOOR(Y5, Y2, Y4)
	VPACKUSDW Y5, Y3, Y0 // per 128-bit lane: 4 of the first 8, 4 of the second
	VPERMQ $0xd8, Y0, Y0 // back in element order
	VMOVDQU Y0, (DI)
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $32, DI
	SUBQ $16, CX
	JNZ loop

	VEXTRACTI128 $1, Y8, X0
	VPMINUD X0, X8, X8
	VPSHUFD $0x4e, X8, X0
	VPMINUD X0, X8, X8
	VPSHUFD $0xb1, X8, X0
	VPMINUD X0, X8, X8
	VMOVD X8, AX
	VPTEST Y7, Y7
	JZ done
	MOVQ $-1048576, AX // bf16NoFMA
done:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
