//go:build amd64 && !purego

#include "textflag.h"

// Vector forms of expf (expf.go) for SiLU and the softmax: eight lanes, each doing
// exactly the Go function's float32 operations in its order (VMULPS then VADDPS or
// VSUBPS, never FMA; floor by VROUNDPS, which equals Go's truncate-then-adjust; the
// scale 2^n built from its bits), so a lane's bits equal expf's. The kernels only
// take the range where expf needs neither clamping nor a two-step scale, x in
// [-86, 88]: they stop before the first block of eight holding anything else
// (NaN included) and return how many elements they did; Go does that block.

// SPLAT8 defines a 32-byte constant holding the 32-bit value v eight times.
#define SPLAT8(sym, v) \
	DATA sym+0(SB)/4, v \
	DATA sym+4(SB)/4, v \
	DATA sym+8(SB)/4, v \
	DATA sym+12(SB)/4, v \
	DATA sym+16(SB)/4, v \
	DATA sym+20(SB)/4, v \
	DATA sym+24(SB)/4, v \
	DATA sym+28(SB)/4, v \
	GLOBL sym(SB), RODATA|NOPTR, $32

SPLAT8(expfSign<>, $0x80000000)
SPLAT8(expfBias<>, $127)
SPLAT8(expfLo<>, $0xc2ac0000)
SPLAT8(expfHi<>, $0x42b00000)

// BCAST sets every lane of y to the 32-bit value v (x is y's low half).
#define BCAST(v, x, y) \
	MOVL v, AX \
	MOVL AX, x \
	VBROADCASTSS x, y

// EXPF_CONSTS broadcasts the constants: Y15 log2e, Y14 0.5 (also the last
// coefficient, 5.0000001201e-1 in float32), Y13 1, Y12 ln2Hi, Y11 ln2Lo,
// Y10-Y6 the coefficients 1.9875691500e-4 … 1.6666665459e-1.
#define EXPF_CONSTS \
	BCAST($0x3fb8aa3b, X15, Y15) \
	BCAST($0x3f000000, X14, Y14) \
	BCAST($0x3f800000, X13, Y13) \
	BCAST($0x3f318000, X12, Y12) \
	BCAST($0xb95e8083, X11, Y11) \
	BCAST($0x39506967, X10, Y10) \
	BCAST($0x3ab743ce, X9, Y9) \
	BCAST($0x3c088908, X8, Y8) \
	BCAST($0x3d2aa9c1, X7, Y7) \
	BCAST($0x3e2aaaaa, X6, Y6)

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
