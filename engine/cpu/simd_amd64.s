//go:build amd64 && !purego

#include "textflag.h"

// AVX2 (and, for the multi-output dots at the end, AVX-512F) kernels for
// dot.go. Each dot kernel computes exactly what dotF32Lanes, dotBF16Lanes and
// dotF16Lanes compute in Go, bit for bit:
//
//   - n (> 0) is a multiple of 32; element i goes to lane i mod 32. Lanes 0-7
//     live in Y0, 8-15 in Y1, 16-23 in Y2, 24-31 in Y3; each lane runs the
//     sequential chain acc = acc + round(w[i]·x[i]) (VMULPS then VADDPS: no FMA,
//     so every product is rounded to float32 first, as Go's float32(w*x) is).
//   - The lanes are reduced in one fixed order: Y0 = (Y0+Y2) + (Y1+Y3), i.e.
//     lane l is (l + l+16) + (l+8 + l+24), which a 16-lane register pair reduces
//     the same way (Z0+Z1, then its halves); then lane l + lane l+4; lane l +
//     lane l+2; lane 0 + lane 1.
//
// Why not FMA: a fused w·x+acc cannot be reproduced cheaply in portable Go
// (float64 math.FMA double-rounds), and on the Zen 4 this was tuned on, VMULPS
// and VADDPS issue on separate pipes, so mul+add has the same throughput and a
// shorter loop-carried latency (the 3-cycle add, not a 4-cycle FMA).
//
// Register use: SI weights, DI activations, CX elements left, Y0-Y3 sums,
// Y4-Y7 widened weights / products. The caller adds the sequential tail.
// Widening is exact: BF16 by zero-extend and shift left 16, F16 by VCVTPH2PS
// (F16C), which converts subnormal halves exactly.

// REDUCE leaves the fixed-order sum of Y0-Y3 in X0 (lane 0).
#define REDUCE \
	VADDPS Y2, Y0, Y0 \
	VADDPS Y3, Y1, Y1 \
	VADDPS Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS X1, X0, X0 \
	VMOVHLPS X0, X0, X1 \
	VADDPS X1, X0, X0 \
	VMOVSHDUP X0, X1 \
	VADDSS X1, X0, X0 \
	VZEROUPPER

#define ZERO4 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3

// MULADD4 multiplies Y4-Y7 by the 32 activations at DI and adds them to Y0-Y3.
#define MULADD4 \
	VMULPS 0(DI), Y4, Y4 \
	VMULPS 32(DI), Y5, Y5 \
	VMULPS 64(DI), Y6, Y6 \
	VMULPS 96(DI), Y7, Y7 \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3

// func dotF32AVX2(w *float32, x *float32, n int) float32
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	ZERO4
f32loop:
	VMOVUPS 0(SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	MULADD4
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  f32loop
	REDUCE
	MOVSS X0, ret+24(FP)
	RET

// func dotBF16AVX2(w *uint16, x *float32, n int) float32
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	ZERO4
bf16loop:
	VPMOVZXWD 0(SI), Y4
	VPMOVZXWD 16(SI), Y5
	VPMOVZXWD 32(SI), Y6
	VPMOVZXWD 48(SI), Y7
	VPSLLD $16, Y4, Y4
	VPSLLD $16, Y5, Y5
	VPSLLD $16, Y6, Y6
	VPSLLD $16, Y7, Y7
	MULADD4
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  bf16loop
	REDUCE
	MOVSS X0, ret+24(FP)
	RET

// func dotF16AVX2(w *uint16, x *float32, n int) float32
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	ZERO4
f16loop:
	VCVTPH2PS 0(SI), Y4
	VCVTPH2PS 16(SI), Y5
	VCVTPH2PS 32(SI), Y6
	VCVTPH2PS 48(SI), Y7
	MULADD4
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  f16loop
	REDUCE
	MOVSS X0, ret+24(FP)
	RET

// func decodeBF16AVX2(dst *float32, src *uint16, n int)
// n (> 0) is a multiple of 8.
TEXT ·decodeBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
dbf16loop:
	VPMOVZXWD 0(SI), Y0
	VPSLLD $16, Y0, Y0
	VMOVUPS Y0, 0(DI)
	ADDQ $16, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  dbf16loop
	VZEROUPPER
	RET

// func decodeF16AVX2(dst *float32, src *uint16, n int)
// n (> 0) is a multiple of 8.
TEXT ·decodeF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
df16loop:
	VCVTPH2PS 0(SI), Y0
	VMOVUPS Y0, 0(DI)
	ADDQ $16, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  df16loop
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() uint32 (the low half of XCR0; only call when OSXSAVE is set)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET

// REDUCE16(lo, hi, ylo, yhi, xlo, xhi) reduces a 32-lane sum held as two
// 16-lane registers (lanes 0-15 in lo, 16-31 in hi) into xlo lane 0, in the
// same order as REDUCE: lo+hi gives lane l + l+16; its upper 8 lanes (l+8 +
// l+24) are added to the lower 8; then l + l+4, l + l+2, l + l+1.
#define REDUCE16(lo, hi, ylo, yhi, xlo, xhi) \
	VADDPS hi, lo, lo \
	VEXTRACTF64X4 $1, lo, yhi \
	VADDPS yhi, ylo, ylo \
	VEXTRACTF128 $1, ylo, xhi \
	VADDPS xhi, xlo, xlo \
	VMOVHLPS xlo, xlo, xhi \
	VADDPS xhi, xlo, xlo \
	VMOVSHDUP xlo, xhi \
	VADDSS xhi, xlo, xlo

// func dotF32x4AVX512(w *float32, x *float32, stride int, n int, out *[4]float32)
//
// One float32 weight row against four activation rows x, x+stride, x+2·stride,
// x+3·stride (stride in elements): out[k] is what dotF32AVX2 returns for row k.
// n (> 0) is a multiple of 32. Each sum keeps its 32 lanes in a register pair:
// token k in Z(2k) (lanes 0-15) and Z(2k+1) (lanes 16-31), same lane mapping and
// chains as the AVX2 kernel, so 8 independent chains hide the add latency and
// each weight load serves four tokens. Registers: SI weights, DI activations,
// R8 stride in bytes, R9 3·stride, CX elements left, DX out, Z0-Z7 sums,
// Z16-Z17 weights, Z18-Z25 products.
TEXT ·dotF32x4AVX512(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
x4loop:
	VMOVUPS 0(SI), Z16
	VMOVUPS 64(SI), Z17
	VMULPS  0(DI), Z16, Z18
	VMULPS  64(DI), Z17, Z19
	VMULPS  0(DI)(R8*1), Z16, Z20
	VMULPS  64(DI)(R8*1), Z17, Z21
	VMULPS  0(DI)(R8*2), Z16, Z22
	VMULPS  64(DI)(R8*2), Z17, Z23
	VMULPS  0(DI)(R9*1), Z16, Z24
	VMULPS  64(DI)(R9*1), Z17, Z25
	VADDPS  Z18, Z0, Z0
	VADDPS  Z19, Z1, Z1
	VADDPS  Z20, Z2, Z2
	VADDPS  Z21, Z3, Z3
	VADDPS  Z22, Z4, Z4
	VADDPS  Z23, Z5, Z5
	VADDPS  Z24, Z6, Z6
	VADDPS  Z25, Z7, Z7
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  x4loop
	REDUCE16(Z0, Z1, Y0, Y1, X0, X1)
	MOVSS X0, 0(DX)
	REDUCE16(Z2, Z3, Y2, Y3, X2, X3)
	MOVSS X2, 4(DX)
	REDUCE16(Z4, Z5, Y4, Y5, X4, X5)
	MOVSS X4, 8(DX)
	REDUCE16(Z6, Z7, Y6, Y7, X6, X7)
	MOVSS X6, 12(DX)
	VZEROUPPER
	RET

// func axpyAVX2(y *float32, a float32, x *float32, n int)
// y[i] = y[i] + round(a·x[i]) for n (> 0, a multiple of 8) elements: VMULPS then
// VADDPS per element, as the Go loop does. Registers: DI y, SI x, CX left,
// Y0 a broadcast, Y1 product.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	VBROADCASTSS a+8(FP), Y0
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
axpyloop:
	VMULPS 0(SI), Y0, Y1
	VADDPS 0(DI), Y1, Y1
	VMOVUPS Y1, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  axpyloop
	VZEROUPPER
	RET

// func dotF32x8AVX512(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32)
//
// Two float32 weight rows (w, w+wstride) against four activation rows (x +
// k·xstride), strides in elements: out[4j+k] is what dotF32AVX2 returns for
// row j and token k (same lanes, chains and REDUCE16 order). n (> 0) is a
// multiple of 32. Per 32 elements it makes 12 loads for 16 multiplies (the
// four-token kernel makes 10 for 8), which is what bounds these kernels.
// Registers: SI weights, R10 wstride in bytes, DI activations, R8 xstride in
// bytes, R9 3·xstride, CX elements left, DX out; Z0-Z15 sums ((j,k) in
// Z(8j+2k), Z(8j+2k+1)), Z16-Z23 activations (token k in Z(16+2k),
// Z(17+2k)), Z24-Z25 one weight row, Z26-Z31 products.
TEXT ·dotF32x8AVX512(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ wstride+8(FP), R10
	SHLQ $2, R10
	MOVQ x+16(FP), DI
	MOVQ xstride+24(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
x8loop:
	VMOVUPS 0(DI), Z16
	VMOVUPS 64(DI), Z17
	VMOVUPS 0(DI)(R8*1), Z18
	VMOVUPS 64(DI)(R8*1), Z19
	VMOVUPS 0(DI)(R8*2), Z20
	VMOVUPS 64(DI)(R8*2), Z21
	VMOVUPS 0(DI)(R9*1), Z22
	VMOVUPS 64(DI)(R9*1), Z23
	VMOVUPS 0(SI), Z24
	VMOVUPS 64(SI), Z25
	VMULPS Z24, Z16, Z26
	VADDPS Z26, Z0, Z0
	VMULPS Z25, Z17, Z27
	VADDPS Z27, Z1, Z1
	VMULPS Z24, Z18, Z28
	VADDPS Z28, Z2, Z2
	VMULPS Z25, Z19, Z29
	VADDPS Z29, Z3, Z3
	VMULPS Z24, Z20, Z30
	VADDPS Z30, Z4, Z4
	VMULPS Z25, Z21, Z31
	VADDPS Z31, Z5, Z5
	VMULPS Z24, Z22, Z26
	VADDPS Z26, Z6, Z6
	VMULPS Z25, Z23, Z27
	VADDPS Z27, Z7, Z7
	VMOVUPS 0(SI)(R10*1), Z24
	VMOVUPS 64(SI)(R10*1), Z25
	VMULPS Z24, Z16, Z28
	VADDPS Z28, Z8, Z8
	VMULPS Z25, Z17, Z29
	VADDPS Z29, Z9, Z9
	VMULPS Z24, Z18, Z30
	VADDPS Z30, Z10, Z10
	VMULPS Z25, Z19, Z31
	VADDPS Z31, Z11, Z11
	VMULPS Z24, Z20, Z26
	VADDPS Z26, Z12, Z12
	VMULPS Z25, Z21, Z27
	VADDPS Z27, Z13, Z13
	VMULPS Z24, Z22, Z28
	VADDPS Z28, Z14, Z14
	VMULPS Z25, Z23, Z29
	VADDPS Z29, Z15, Z15
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  x8loop
	REDUCE16(Z0, Z1, Y0, Y1, X0, X1)
	MOVSS X0, 0(DX)
	REDUCE16(Z2, Z3, Y2, Y3, X2, X3)
	MOVSS X2, 4(DX)
	REDUCE16(Z4, Z5, Y4, Y5, X4, X5)
	MOVSS X4, 8(DX)
	REDUCE16(Z6, Z7, Y6, Y7, X6, X7)
	MOVSS X6, 12(DX)
	REDUCE16(Z8, Z9, Y8, Y9, X8, X9)
	MOVSS X8, 16(DX)
	REDUCE16(Z10, Z11, Y10, Y11, X10, X11)
	MOVSS X10, 20(DX)
	REDUCE16(Z12, Z13, Y12, Y13, X12, X13)
	MOVSS X12, 24(DX)
	REDUCE16(Z14, Z15, Y14, Y15, X14, X15)
	MOVSS X14, 28(DX)
	VZEROUPPER
	RET
