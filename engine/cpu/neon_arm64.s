//go:build arm64 && !purego

#include "textflag.h"
#include "neonenc_arm64.h"

// NEON (AdvSIMD) kernels for dot.go on arm64, each computing exactly what its Go
// lane kernel computes, bit for bit: element i of the first n − n mod 32 goes to
// lane i mod 32 (lanes 0-3 in the first accumulator register, 4-7 in the second,
// … 28-31 in the eighth), each lane runs acc = acc + round(w[i]·x[i]) (FMUL then
// FADD, never FMLA), and the lanes are reduced in reduceLanes' order; NaNs
// follow the operand order of Go's scalar code (the weight, then the
// activation; the sum, then the product). AArch64 SIMD arithmetic obeys FPCR
// like the scalar unit does, so subnormals behave the same in both.
//
// The Go assembler has no mnemonics for vector FADD/FMUL, SHLL, FCVTL or scalar
// FADDP: neonenc_arm64.h emits their A64 encodings.

// MULADD8 multiplies V0-V7 (weights) by V8-V15 (activations) into V0-V7 and
// adds them to the lane sums V24-V31.
#define MULADD8 \
	FMUL4S(0, 0, 8) \
	FMUL4S(1, 1, 9) \
	FMUL4S(2, 2, 10) \
	FMUL4S(3, 3, 11) \
	FMUL4S(4, 4, 12) \
	FMUL4S(5, 5, 13) \
	FMUL4S(6, 6, 14) \
	FMUL4S(7, 7, 15) \
	FADD4S(24, 24, 0) \
	FADD4S(25, 25, 1) \
	FADD4S(26, 26, 2) \
	FADD4S(27, 27, 3) \
	FADD4S(28, 28, 4) \
	FADD4S(29, 29, 5) \
	FADD4S(30, 30, 6) \
	FADD4S(31, 31, 7)

// REDUCE32 leaves reduceLanes of V24-V31 in F0: v[0:4] = (V24+V28) + (V26+V30),
// v[4:8] = (V25+V29) + (V27+V31), w = v[0:4] + v[4:8], then (w0+w2) + (w1+w3).
#define REDUCE32 \
	FADD4S(24, 24, 28) \
	FADD4S(26, 26, 30) \
	FADD4S(24, 24, 26) \
	FADD4S(25, 25, 29) \
	FADD4S(27, 27, 31) \
	FADD4S(25, 25, 27) \
	FADD4S(24, 24, 25) \
	EXT8(1, 24, 24) \
	FADD4S(24, 24, 1) \
	FADDP2S(0, 24)

#define ZERO8 \
	VEOR V24.B16, V24.B16, V24.B16 \
	VEOR V25.B16, V25.B16, V25.B16 \
	VEOR V26.B16, V26.B16, V26.B16 \
	VEOR V27.B16, V27.B16, V27.B16 \
	VEOR V28.B16, V28.B16, V28.B16 \
	VEOR V29.B16, V29.B16, V29.B16 \
	VEOR V30.B16, V30.B16, V30.B16 \
	VEOR V31.B16, V31.B16, V31.B16

// LOADX loads 32 activations from R1 into V8-V15.
#define LOADX \
	VLD1.P 64(R1), [V8.S4, V9.S4, V10.S4, V11.S4] \
	VLD1.P 64(R1), [V12.S4, V13.S4, V14.S4, V15.S4]

// func dotF32NEON(w *float32, x *float32, n int) float32
TEXT ·dotF32NEON(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	ZERO8
f32loop:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	LOADX
	MULADD8
	SUBS $32, R2, R2
	BNE  f32loop
	REDUCE32
	FMOVS F0, ret+24(FP)
	RET

// DOT16 is the body of dotBF16NEON and dotF16NEON: LO and HI widen the lower
// and upper four of eight 16-bit weights to float32.
#define DOT16(label, LO, HI) \
	MOVD w+0(FP), R0 \
	MOVD x+8(FP), R1 \
	MOVD n+16(FP), R2 \
	ZERO8 \
label: \
	VLD1.P 64(R0), [V16.H8, V17.H8, V18.H8, V19.H8] \
	LO(0, 16) \
	HI(1, 16) \
	LO(2, 17) \
	HI(3, 17) \
	LO(4, 18) \
	HI(5, 18) \
	LO(6, 19) \
	HI(7, 19) \
	LOADX \
	MULADD8 \
	SUBS $32, R2, R2 \
	BNE  label \
	REDUCE32 \
	FMOVS F0, ret+24(FP) \
	RET

// func dotBF16NEON(w *uint16, x *float32, n int) float32
TEXT ·dotBF16NEON(SB), NOSPLIT, $0-28
	DOT16(bf16loop, SHLL4S, SHLL24S)

// func dotF16NEON(w *uint16, x *float32, n int) float32
TEXT ·dotF16NEON(SB), NOSPLIT, $0-28
	DOT16(f16loop, FCVTL4S, FCVTL24S)

// func decodeF16NEON(dst *float32, src *uint16, n int)
// dst[i] = float32(src[i]) for IEEE halves, n (> 0) a multiple of 16.
TEXT ·decodeF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
decodef16loop:
	VLD1.P 32(R1), [V16.H8, V17.H8]
	FCVTL4S(0, 16)
	FCVTL24S(1, 16)
	FCVTL4S(2, 17)
	FCVTL24S(3, 17)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUBS $16, R2, R2
	BNE  decodef16loop
	RET

// func axpyNEON(y *float32, a float32, x *float32, n int)
// y[i] = y[i] + round(a·x[i]) for n (> 0, a multiple of 16) elements.
TEXT ·axpyNEON(SB), NOSPLIT, $0-32
	MOVD y+0(FP), R0
	FMOVS a+8(FP), F16
	VDUP V16.S[0], V16.S4
	MOVD x+16(FP), R1
	MOVD n+24(FP), R2
	MOVD R0, R3
axpyloop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	FMUL4S(0, 16, 0)
	FMUL4S(1, 16, 1)
	FMUL4S(2, 16, 2)
	FMUL4S(3, 16, 3)
	FADD4S(4, 4, 0)
	FADD4S(5, 5, 1)
	FADD4S(6, 6, 2)
	FADD4S(7, 7, 3)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R3)
	SUBS $16, R2, R2
	BNE  axpyloop
	RET

// func dotF32x8NEON(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32, part *[64]float32)
//
// dotF32x8AVX2 on NEON: two weight rows (w, w+wstride) against four activation
// rows (x + k·xstride), strides in elements; out[4j+k] is dotF32NEON's result
// for row j and token k, bit for bit; n (> 0) is a multiple of 32. The row is
// run eight times, once per group of four lanes (the Q register at byte 16g of
// every 128), with one sum register per product, four activation and two
// weight loads per eight multiplies; the groups are added in the tree's order
// ((g0+g4) + (g2+g6) for lanes l < 4 of v, (g1+g5) + (g3+g7) for 4 ≤ l < 8)
// through part, then each product's REDUCE32 tail. (ggml's NEON GEMM tiles
// outputs the same way, with FMLA and its own order.)
// Registers: R0 weights, R1 activations, R2 32-element steps, R3 out, R4 part,
// R5 wstride and R6 xstride in bytes, R7-R12 a pass's cursors, R13 its steps;
// V24-V31 sums (row j, token k in V(24+4j+k)), V8-V11 activations, V12-V13
// weights, V14 products, V0-V7 and V16-V23 the combining.

// GPASS4 runs lane group off/16 through the row into V24-V31.
#define GPASS4(label, off) \
	ADD $off, R0, R7 \
	ADD R5, R7, R8 \
	ADD $off, R1, R9 \
	ADD R6, R9, R10 \
	ADD R6, R10, R11 \
	ADD R6, R11, R12 \
	MOVD R2, R13 \
	ZERO8 \
label: \
	VLD1 (R9), [V8.S4] \
	VLD1 (R10), [V9.S4] \
	VLD1 (R11), [V10.S4] \
	VLD1 (R12), [V11.S4] \
	VLD1 (R7), [V12.S4] \
	VLD1 (R8), [V13.S4] \
	FMUL4S(14, 12, 8) \
	FADD4S(24, 24, 14) \
	FMUL4S(14, 12, 9) \
	FADD4S(25, 25, 14) \
	FMUL4S(14, 12, 10) \
	FADD4S(26, 26, 14) \
	FMUL4S(14, 12, 11) \
	FADD4S(27, 27, 14) \
	FMUL4S(14, 13, 8) \
	FADD4S(28, 28, 14) \
	FMUL4S(14, 13, 9) \
	FADD4S(29, 29, 14) \
	FMUL4S(14, 13, 10) \
	FADD4S(30, 30, 14) \
	FMUL4S(14, 13, 11) \
	FADD4S(31, 31, 14) \
	ADD $128, R7 \
	ADD $128, R8 \
	ADD $128, R9 \
	ADD $128, R10 \
	ADD $128, R11 \
	ADD $128, R12 \
	SUBS $1, R13, R13 \
	BNE label

// TO8 copies V24-V31 to V(d)…V(d+7) (d = 0 or 16).
#define TO8(d0, d1, d2, d3, d4, d5, d6, d7) \
	VMOV V24.B16, d0.B16 \
	VMOV V25.B16, d1.B16 \
	VMOV V26.B16, d2.B16 \
	VMOV V27.B16, d3.B16 \
	VMOV V28.B16, d4.B16 \
	VMOV V29.B16, d5.B16 \
	VMOV V30.B16, d6.B16 \
	VMOV V31.B16, d7.B16

// ADDTO8 sets V(d+i) = V(d+i) + V(24+i), the saved sums first.
#define ADDTO8(d) \
	FADD4S(d, d, 24) \
	FADD4S(d+1, d+1, 25) \
	FADD4S(d+2, d+2, 26) \
	FADD4S(d+3, d+3, 27) \
	FADD4S(d+4, d+4, 28) \
	FADD4S(d+5, d+5, 29) \
	FADD4S(d+6, d+6, 30) \
	FADD4S(d+7, d+7, 31)

// ADD8 sets V(d+i) = V(d+i) + V(s+i).
#define ADD8(d, s) \
	FADD4S(d, d, s) \
	FADD4S(d+1, d+1, s+1) \
	FADD4S(d+2, d+2, s+2) \
	FADD4S(d+3, d+3, s+3) \
	FADD4S(d+4, d+4, s+4) \
	FADD4S(d+5, d+5, s+5) \
	FADD4S(d+6, d+6, s+6) \
	FADD4S(d+7, d+7, s+7)

// HALF sets V(d) = (g_a + g_b) + (g_c + g_e) for the passes at byte offsets
// a, b, c, e (each product's four lanes), in V(d)…V(d+7), using V(t)…V(t+7).
#define HALF(la, lb, lc, le, a, b, c, e, d, t, D0, D1, D2, D3, D4, D5, D6, D7, T0, T1, T2, T3, T4, T5, T6, T7) \
	GPASS4(la, a) \
	TO8(D0, D1, D2, D3, D4, D5, D6, D7) \
	GPASS4(lb, b) \
	ADDTO8(d) \
	GPASS4(lc, c) \
	TO8(T0, T1, T2, T3, T4, T5, T6, T7) \
	GPASS4(le, e) \
	ADDTO8(t) \
	ADD8(d, t)

// FINISH1 stores product i's total: w = V(i) + V(16+i), then (w0+w2) + (w1+w3).
#define FINISH1(i, f) \
	FADD4S(i, i, 16+i) \
	EXT8(14, i, i) \
	FADD4S(i, i, 14) \
	FADDP2S(i, i) \
	FMOVS f, (4*i)(R3)

TEXT ·dotF32x8NEON(SB), NOSPLIT, $0-56
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R5
	LSL  $2, R5
	MOVD x+16(FP), R1
	MOVD xstride+24(FP), R6
	LSL  $2, R6
	MOVD n+32(FP), R2
	LSR  $5, R2
	MOVD out+40(FP), R3
	// lanes 0-3 of v: (g0 + g4) + (g2 + g6) into V0-V7
	HALF(p0, p4, p2, p6, 0, 64, 32, 96, 0, 16, V0, V1, V2, V3, V4, V5, V6, V7, V16, V17, V18, V19, V20, V21, V22, V23)
	// park them in part: lanes 4-7 need both register banks
	MOVD part+48(FP), R4
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R4)
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R4)
	// lanes 4-7 of v: (g1 + g5) + (g3 + g7) into V16-V23
	HALF(p1, p5, p3, p7, 16, 80, 48, 112, 16, 0, V16, V17, V18, V19, V20, V21, V22, V23, V0, V1, V2, V3, V4, V5, V6, V7)
	MOVD part+48(FP), R4
	VLD1.P 64(R4), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1 (R4), [V4.S4, V5.S4, V6.S4, V7.S4]
	FINISH1(0, F0)
	FINISH1(1, F1)
	FINISH1(2, F2)
	FINISH1(3, F3)
	FINISH1(4, F4)
	FINISH1(5, F5)
	FINISH1(6, F6)
	FINISH1(7, F7)
	RET
