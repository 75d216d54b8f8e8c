//go:build amd64 && !purego

#include "textflag.h"

// Vector forms of expf (expf.go) for SiLU and the softmax: eight lanes, each doing
// exactly the Go function's float32 operations in its order (VMULPS then VADDPS or
// VSUBPS, never FMA; floor by VROUNDPS, which equals Go's truncate-then-adjust; the
// scale 2^n built from its bits), so a lane's bits equal expf's. The kernels only
// take the range where expf needs neither clamping nor a two-step scale, x in
// [-86, 88]: they stop before the first block of eight holding anything else
// (NaN included) and return how many elements they did; Go does that block.

DATA expfSign<>+0(SB)/4, $0x80000000
DATA expfSign<>+4(SB)/4, $0x80000000
DATA expfSign<>+8(SB)/4, $0x80000000
DATA expfSign<>+12(SB)/4, $0x80000000
DATA expfSign<>+16(SB)/4, $0x80000000
DATA expfSign<>+20(SB)/4, $0x80000000
DATA expfSign<>+24(SB)/4, $0x80000000
DATA expfSign<>+28(SB)/4, $0x80000000
GLOBL expfSign<>(SB), RODATA|NOPTR, $32

DATA expfBias<>+0(SB)/4, $127
DATA expfBias<>+4(SB)/4, $127
DATA expfBias<>+8(SB)/4, $127
DATA expfBias<>+12(SB)/4, $127
DATA expfBias<>+16(SB)/4, $127
DATA expfBias<>+20(SB)/4, $127
DATA expfBias<>+24(SB)/4, $127
DATA expfBias<>+28(SB)/4, $127
GLOBL expfBias<>(SB), RODATA|NOPTR, $32

DATA expfLo<>+0(SB)/4, $0xc2ac0000
DATA expfLo<>+4(SB)/4, $0xc2ac0000
DATA expfLo<>+8(SB)/4, $0xc2ac0000
DATA expfLo<>+12(SB)/4, $0xc2ac0000
DATA expfLo<>+16(SB)/4, $0xc2ac0000
DATA expfLo<>+20(SB)/4, $0xc2ac0000
DATA expfLo<>+24(SB)/4, $0xc2ac0000
DATA expfLo<>+28(SB)/4, $0xc2ac0000
GLOBL expfLo<>(SB), RODATA|NOPTR, $32

DATA expfHi<>+0(SB)/4, $0x42b00000
DATA expfHi<>+4(SB)/4, $0x42b00000
DATA expfHi<>+8(SB)/4, $0x42b00000
DATA expfHi<>+12(SB)/4, $0x42b00000
DATA expfHi<>+16(SB)/4, $0x42b00000
DATA expfHi<>+20(SB)/4, $0x42b00000
DATA expfHi<>+24(SB)/4, $0x42b00000
DATA expfHi<>+28(SB)/4, $0x42b00000
GLOBL expfHi<>(SB), RODATA|NOPTR, $32

// EXPF_CONSTS broadcasts the constants: Y15 log2e, Y14 0.5 (also the last
// coefficient, 5.0000001201e-1 in float32), Y13 1, Y12 ln2Hi, Y11 ln2Lo,
// Y10-Y6 the coefficients 1.9875691500e-4 … 1.6666665459e-1.
#define EXPF_CONSTS \
	MOVL $0x3fb8aa3b, AX \
	MOVL AX, X15 \
	VBROADCASTSS X15, Y15 \
	MOVL $0x3f000000, AX \
	MOVL AX, X14 \
	VBROADCASTSS X14, Y14 \
	MOVL $0x3f800000, AX \
	MOVL AX, X13 \
	VBROADCASTSS X13, Y13 \
	MOVL $0x3f318000, AX \
	MOVL AX, X12 \
	VBROADCASTSS X12, Y12 \
	MOVL $0xb95e8083, AX \
	MOVL AX, X11 \
	VBROADCASTSS X11, Y11 \
	MOVL $0x39506967, AX \
	MOVL AX, X10 \
	VBROADCASTSS X10, Y10 \
	MOVL $0x3ab743ce, AX \
	MOVL AX, X9 \
	VBROADCASTSS X9, Y9 \
	MOVL $0x3c088908, AX \
	MOVL AX, X8 \
	VBROADCASTSS X8, Y8 \
	MOVL $0x3d2aa9c1, AX \
	MOVL AX, X7 \
	VBROADCASTSS X7, Y7 \
	MOVL $0x3e2aaaaa, AX \
	MOVL AX, X6 \
	VBROADCASTSS X6, Y6

// EXPF_INRANGE jumps to label unless every lane of Y1 is in [-86, 88].
#define EXPF_INRANGE(label) \
	VCMPPS $0x1d, expfLo<>(SB), Y1, Y2 \
	VCMPPS $0x12, expfHi<>(SB), Y1, Y3 \
	VANDPS Y3, Y2, Y2 \
	VMOVMSKPS Y2, AX \
	CMPL AX, $0xff \
	JNE label

// EXPF sets Y1 = expf(Y1), clobbering Y2-Y4.
#define EXPF \
	VMULPS Y15, Y1, Y2 \
	VADDPS Y14, Y2, Y2 \
	VROUNDPS $1, Y2, Y2 \
	VMULPS Y12, Y2, Y3 \
	VSUBPS Y3, Y1, Y1 \
	VMULPS Y11, Y2, Y3 \
	VSUBPS Y3, Y1, Y1 \
	VMULPS Y10, Y1, Y3 \
	VADDPS Y9, Y3, Y3 \
	VMULPS Y1, Y3, Y3 \
	VADDPS Y8, Y3, Y3 \
	VMULPS Y1, Y3, Y3 \
	VADDPS Y7, Y3, Y3 \
	VMULPS Y1, Y3, Y3 \
	VADDPS Y6, Y3, Y3 \
	VMULPS Y1, Y3, Y3 \
	VADDPS Y14, Y3, Y3 \
	VMULPS Y1, Y1, Y4 \
	VMULPS Y4, Y3, Y3 \
	VADDPS Y1, Y3, Y3 \
	VADDPS Y13, Y3, Y3 \
	VCVTTPS2DQ Y2, Y2 \
	VPADDD expfBias<>(SB), Y2, Y2 \
	VPSLLD $23, Y2, Y2 \
	VMULPS Y2, Y3, Y1

// func swigluAVX2(gate *float32, up *float32, n int) int
TEXT ·swigluAVX2(SB), NOSPLIT, $0-32
	MOVQ gate+0(FP), DI
	MOVQ up+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ DX, DX
	EXPF_CONSTS
swigluloop:
	CMPQ DX, CX
	JGE  swigludone
	VMOVUPS (DI)(DX*4), Y0
	VXORPS expfSign<>(SB), Y0, Y1
	EXPF_INRANGE(swigludone)
	EXPF
	VADDPS Y13, Y1, Y1
	VDIVPS Y1, Y0, Y0
	VMULPS (SI)(DX*4), Y0, Y0
	VMOVUPS Y0, (DI)(DX*4)
	ADDQ $8, DX
	JMP  swigluloop
swigludone:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET

// func expSubAVX2(s *float32, m float32, n int) int
TEXT ·expSubAVX2(SB), NOSPLIT, $0-32
	MOVQ s+0(FP), DI
	VBROADCASTSS m+8(FP), Y5
	MOVQ n+16(FP), CX
	XORQ DX, DX
	EXPF_CONSTS
expsubloop:
	CMPQ DX, CX
	JGE  expsubdone
	VMOVUPS (DI)(DX*4), Y1
	VSUBPS Y5, Y1, Y1
	EXPF_INRANGE(expsubdone)
	EXPF
	VMOVUPS Y1, (DI)(DX*4)
	ADDQ $8, DX
	JMP  expsubloop
expsubdone:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET
