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

SPLAT8(expfLn2Hi<>, $0x3f318000)
SPLAT8(expfLn2Lo<>, $0xb95e8083)
SPLAT8(expfC1<>, $0x39506967)
SPLAT8(expfC2<>, $0x3ab743ce)
SPLAT8(expfC3<>, $0x3c088908)
SPLAT8(expfC4<>, $0x3d2aa9c1)
SPLAT8(expfC5<>, $0x3e2aaaaa)

// BCAST sets every lane of y to the 32-bit value v (x is y's low half).
#define BCAST(v, x, y) \
	MOVL v, AX \
	MOVL AX, x \
	VBROADCASTSS x, y

// EXPF_CONSTS broadcasts the constants the steps keep in registers: Y15 log2e,
// Y14 0.5 (also the last coefficient, 5.0000001201e-1 in float32), Y13 1. The
// others (ln2Hi, ln2Lo and the coefficients 1.9875691500e-4 … 1.6666665459e-1)
// come from memory, which leaves twelve registers for blocks.
#define EXPF_CONSTS \
	BCAST($0x3fb8aa3b, X15, Y15) \
	BCAST($0x3f000000, X14, Y14) \
	BCAST($0x3f800000, X13, Y13)

// XINRANGE sets mask's lanes where x is in [-86, 88], clobbering t.
#define XINRANGE(x, mask, t) \
	VCMPPS $0x1d, expfLo<>(SB), x, mask \
	VCMPPS $0x12, expfHi<>(SB), x, t \
	VANDPS t, mask, mask

// XE1 … XE12 set x = expf(x) in twelve steps, each taking one block's registers
// (x the input and result, a the exponent, b the polynomial, c x²), so that a
// kernel can interleave blocks step by step (XSTEP3): the chain of ~25
// dependent operations is long enough that one block at a time leaves the FP
// pipes mostly idle. Interleaving changes no operand or order, so no bit.
#define XE1(x, a, b, c) \
	VMULPS Y15, x, a \
	VADDPS Y14, a, a \
	VROUNDPS $1, a, a \
	VMULPS expfLn2Hi<>(SB), a, b
#define XE2(x, a, b, c) \
	VSUBPS b, x, x \
	VMULPS expfLn2Lo<>(SB), a, b
#define XE3(x, a, b, c) \
	VSUBPS b, x, x \
	VMULPS expfC1<>(SB), x, b \
	VMULPS x, x, c
#define XE4(x, a, b, c) \
	VADDPS expfC2<>(SB), b, b \
	VMULPS x, b, b
#define XE5(x, a, b, c) \
	VADDPS expfC3<>(SB), b, b \
	VMULPS x, b, b
#define XE6(x, a, b, c) \
	VADDPS expfC4<>(SB), b, b \
	VMULPS x, b, b
#define XE7(x, a, b, c) \
	VADDPS expfC5<>(SB), b, b \
	VMULPS x, b, b
#define XE8(x, a, b, c) \
	VADDPS Y14, b, b \
	VCVTTPS2DQ a, a
#define XE9(x, a, b, c) \
	VMULPS c, b, b \
	VPADDD expfBias<>(SB), a, a
#define XE10(x, a, b, c) \
	VADDPS x, b, b \
	VPSLLD $23, a, a
#define XE11(x, a, b, c) \
	VADDPS Y13, b, b
#define XE12(x, a, b, c) \
	VMULPS a, b, x

// XSTEP3 runs a step on three blocks: Y1-Y4, Y5-Y8, Y9-Y12.
#define XSTEP3(STEP) \
	STEP(Y1, Y2, Y3, Y4) \
	STEP(Y5, Y6, Y7, Y8) \
	STEP(Y9, Y10, Y11, Y12)

#define XEXP3 \
	XSTEP3(XE1) \
	XSTEP3(XE2) \
	XSTEP3(XE3) \
	XSTEP3(XE4) \
	XSTEP3(XE5) \
	XSTEP3(XE6) \
	XSTEP3(XE7) \
	XSTEP3(XE8) \
	XSTEP3(XE9) \
	XSTEP3(XE10) \
	XSTEP3(XE11) \
	XSTEP3(XE12)

// XEXP1 sets Y1 = expf(Y1), clobbering Y2-Y4.
#define XEXP1 \
	XE1(Y1, Y2, Y3, Y4) \
	XE2(Y1, Y2, Y3, Y4) \
	XE3(Y1, Y2, Y3, Y4) \
	XE4(Y1, Y2, Y3, Y4) \
	XE5(Y1, Y2, Y3, Y4) \
	XE6(Y1, Y2, Y3, Y4) \
	XE7(Y1, Y2, Y3, Y4) \
	XE8(Y1, Y2, Y3, Y4) \
	XE9(Y1, Y2, Y3, Y4) \
	XE10(Y1, Y2, Y3, Y4) \
	XE11(Y1, Y2, Y3, Y4) \
	XE12(Y1, Y2, Y3, Y4)

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
	XINRANGE(Y1, Y2, Y3)
	VMOVMSKPS Y2, AX
	CMPL AX, $0xff
	JNE  swigludone
	XEXP1
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

// XLOAD sets x = s[DX + off/4 …] − m.
#define XLOAD(off, x) \
	VMOVUPS off(DI)(DX*4), x \
	VSUBPS Y0, x, x

// func expSubAVX2(s *float32, m float32, n int) int
//
// Three blocks a step while three are left and all 24 lanes are in range; one
// block a step otherwise, stopping before a block with a lane out of range.
TEXT ·expSubAVX2(SB), NOSPLIT, $0-32
	MOVQ s+0(FP), DI
	VBROADCASTSS m+8(FP), Y0
	MOVQ n+16(FP), CX
	XORQ DX, DX
	EXPF_CONSTS

expsub3loop:
	MOVQ CX, R8
	SUBQ DX, R8
	CMPQ R8, $24
	JLT  expsubloop
	XLOAD(0, Y1)
	XLOAD(32, Y5)
	XLOAD(64, Y9)
	XINRANGE(Y1, Y2, Y3)
	XINRANGE(Y5, Y6, Y7)
	XINRANGE(Y9, Y10, Y11)
	VANDPS Y6, Y2, Y2
	VANDPS Y10, Y2, Y2
	VMOVMSKPS Y2, AX
	CMPL AX, $0xff
	JNE  expsubloop
	XEXP3
	VMOVUPS Y1, 0(DI)(DX*4)
	VMOVUPS Y5, 32(DI)(DX*4)
	VMOVUPS Y9, 64(DI)(DX*4)
	ADDQ $24, DX
	JMP  expsub3loop

expsubloop:
	CMPQ DX, CX
	JGE  expsubdone
	XLOAD(0, Y1)
	XINRANGE(Y1, Y2, Y3)
	VMOVMSKPS Y2, AX
	CMPL AX, $0xff
	JNE  expsubdone
	XEXP1
	VMOVUPS Y1, (DI)(DX*4)
	ADDQ $8, DX
	JMP  expsubloop

expsubdone:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET
