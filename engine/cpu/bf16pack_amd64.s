//go:build amd64 && !purego

#include "textflag.h"

// func packBF16AVX512(dst *uint32, x *float32, n int)
//
// dst holds x[0:n] (n > 0, a multiple of 16) rounded to bfloat16, two a dword in
// order: VCVTNEPS2BF16, whose rounding is roundBF16's (nearest-even, NaN made
// quiet, subnormal inputs as zeros of their sign; TestPackBF16MatchesRound).
// The Go assembler has no AVX512_BF16 mnemonics: CVT01 emits
// VCVTNEPS2BF16 Y1, Z0 as bytes, EVEX.512.F3.0F38.W0 72 /r with ModRM 11 001 000,
// and CVT23 VCVTNEPS2BF16 Y3, Z2 (ModRM 11 011 010).
#define CVT01 \
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xc8

#define CVT23 \
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xda

TEXT ·packBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	CMPQ CX, $32
	JLT  pack16
pack32:
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z2
	CVT01
	CVT23
	VMOVDQU Y1, 0(DI)
	VMOVDQU Y3, 32(DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE  pack32
	TESTQ CX, CX
	JZ   packdone
pack16:
	VMOVUPS 0(SI), Z0
	CVT01
	VMOVDQU Y1, 0(DI)
packdone:
	VZEROUPPER
	RET
