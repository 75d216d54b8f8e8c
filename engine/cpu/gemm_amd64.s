//go:build amd64 && !purego

#include "textflag.h"
#include "reduce8_amd64.h"

// func dotF32x8AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32)
//
// The AVX2 register block of the batched matmul: two float32 weight rows (w,
// w+wstride) against four activation rows (x + k·xstride), strides in elements;
// out[4j+k] is, bit for bit, what dotF32AVX2 returns for row j and token k. n
// (> 0) is a multiple of 32.
//
// dot's 32 lane chains (lane l: acc = 0, + round(w[l]·x[l]), + round(w[l+32]·
// x[l+32]), …) need four YMM per product, so eight products would take every
// register for their sums alone. But the chains of different lanes never meet
// before the final reduction, so the kernel runs the row four times, once per
// group of eight lanes (the YMM at byte offset 32g of every 128): each pass
// holds one sum register per product, eight in all, loads four activation and
// two weight vectors per eight multiplies, and keeps every chain's order. Passes
// 0 and 2 are added as they end ((l + l+16) in REDUCE), as are 1 and 3, then the
// two, in frame memory; then the horizontal steps of REDUCE run transposed
// (reduce8_amd64.h): eight products take 7 adds and 14 shuffles. Every add
// keeps REDUCE's operand order, every multiply dot's (the weight first), so NaN
// payloads match too.
//
// Registers: SI weights, R8 wstride in bytes, DI activations, R9 xstride and
// R10 3·xstride in bytes, CX 32-element steps, DX out, R11 R12 R13 a pass's
// weight and activation cursors and steps left; Y0-Y7 sums (row j, token k in
// Y(4j+k)), Y8-Y11 activations, Y12 a weight vector, Y13-Y15 products.
// Frame: 0-255 pass 0, then passes 0+2; 256-511 pass 1.

// ZEROS8 clears the sums Y0-Y7.
#define ZEROS8 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

// GPASS runs lane group g (byte offset off) through the row into Y0-Y7.
#define GPASS(label, off) \
	LEAQ off(SI), R11 \
	LEAQ off(DI), R12 \
	MOVQ CX, R13 \
	ZEROS8 \
label: \
	VMOVUPS (R12), Y8 \
	VMOVUPS (R12)(R9*1), Y9 \
	VMOVUPS (R12)(R9*2), Y10 \
	VMOVUPS (R12)(R10*1), Y11 \
	VMOVUPS (R11), Y12 \
	VMULPS Y8, Y12, Y13 \
	VADDPS Y13, Y0, Y0 \
	VMULPS Y9, Y12, Y14 \
	VADDPS Y14, Y1, Y1 \
	VMULPS Y10, Y12, Y15 \
	VADDPS Y15, Y2, Y2 \
	VMULPS Y11, Y12, Y13 \
	VADDPS Y13, Y3, Y3 \
	VMOVUPS (R11)(R8*1), Y12 \
	VMULPS Y8, Y12, Y14 \
	VADDPS Y14, Y4, Y4 \
	VMULPS Y9, Y12, Y15 \
	VADDPS Y15, Y5, Y5 \
	VMULPS Y10, Y12, Y13 \
	VADDPS Y13, Y6, Y6 \
	VMULPS Y11, Y12, Y14 \
	VADDPS Y14, Y7, Y7 \
	ADDQ $128, R11 \
	ADDQ $128, R12 \
	DECQ R13 \
	JNZ  label

// SAVE8 stores Y0-Y7 at frame offset base.
#define SAVE8(base) \
	VMOVUPS Y0, base+0(SP) \
	VMOVUPS Y1, base+32(SP) \
	VMOVUPS Y2, base+64(SP) \
	VMOVUPS Y3, base+96(SP) \
	VMOVUPS Y4, base+128(SP) \
	VMOVUPS Y5, base+160(SP) \
	VMOVUPS Y6, base+192(SP) \
	VMOVUPS Y7, base+224(SP)

// FIRST1 sets y = frame[base+off] + y, the saved sum as the first source,
// through the free register t.
#define FIRST1(base, off, y, t) \
	VMOVUPS base+off(SP), t \
	VADDPS y, t, y

#define FIRST8T(base, t) \
	FIRST1(base, 0, Y0, t) \
	FIRST1(base, 32, Y1, t) \
	FIRST1(base, 64, Y2, t) \
	FIRST1(base, 96, Y3, t) \
	FIRST1(base, 128, Y4, t) \
	FIRST1(base, 160, Y5, t) \
	FIRST1(base, 192, Y6, t) \
	FIRST1(base, 224, Y7, t)

#define FIRST8(base) FIRST8T(base, Y8)

// ARGS loads the arguments both kernels share into their registers.
#define ARGS \
	MOVQ w+0(FP), SI \
	MOVQ wstride+8(FP), R8 \
	SHLQ $2, R8 \
	MOVQ x+16(FP), DI \
	MOVQ xstride+24(FP), R9 \
	SHLQ $2, R9 \
	LEAQ (R9)(R9*2), R10 \
	MOVQ n+32(FP), CX \
	SHRQ $5, CX \
	MOVQ out+40(FP), DX

// PASSES runs the four lane-group passes with GP and adds them in the tree's
// order through the frame (SAVE and FIRST at offsets 0 and hi): 0 + 2, 1 + 3,
// then the two. Passes 0 and 1 read the same cache lines (the first 64 bytes of
// every 128), as do 2 and 3, so they run back to back: a row block larger than
// L1 (down_proj's 1536 columns: 48 KiB for two rows and six tokens) is then read
// from L2 twice per call instead of four times.
#define PASSES(GP, SAVE, FIRST, hi) \
	GP(pass0, 0) \
	SAVE(0) \
	GP(pass1, 32) \
	SAVE(hi) \
	GP(pass2, 64) \
	FIRST(0) \
	SAVE(0) \
	GP(pass3, 96) \
	FIRST(hi) \
	FIRST(0)

// func dotF32x8AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32)
TEXT ·dotF32x8AVX2(SB), NOSPLIT, $512-48
	ARGS
	PASSES(GPASS, SAVE8, FIRST8, 256)
	// Y(4j+k) holds product 4j+k's eight lanes; reduce all eight at once.
	HALVES(Y0, Y1, Y8, Y12)
	HALVES(Y2, Y3, Y9, Y12)
	HALVES(Y4, Y5, Y10, Y12)
	HALVES(Y6, Y7, Y11, Y12)
	PAIRS(Y8, Y9, Y0, Y12)
	PAIRS(Y10, Y11, Y1, Y12)
	FINAL8(Y0, Y1, Y2, Y3)
	VMOVUPS reduce8Perm<>(SB), Y4
	VPERMPS Y2, Y4, Y5
	VMOVUPS Y5, (DX)
	VZEROUPPER
	RET

// func dotF32x12AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[12]float32)
//
// dotF32x8AVX2 for two rows and six tokens: out[6j+k] is dotF32AVX2's result for
// row j and token k, bit for bit; n (> 0) is a multiple of 32. The same four
// passes, with twelve sum registers, both weight vectors held and each
// activation vector loaded once for the two rows: 8 loads per 12 multiplies
// instead of 6 per 8, which is what bounds these kernels on Zen 3.
// Registers: SI weights, R8 wstride in bytes, DI activations, R9 xstride and
// R10 3·xstride in bytes, CX 32-element steps, DX out, R11 R12 R13 a pass's
// weight cursor, activation cursor (tokens 0-2) and steps left, R14 the
// activation cursor of tokens 3-5; Y0-Y11 sums (row j, token k in Y(6j+k)),
// Y12-Y13 the two weight vectors, Y14 an activation vector, Y15 products.
// Frame: 0-383 pass 0, then passes 0+2; 384-767 pass 1.

// XPROD adds row 0's and row 1's products with the activation at a to sums s0, s1.
#define XPROD(a, s0, s1) \
	VMOVUPS a, Y14 \
	VMULPS Y14, Y12, Y15 \
	VADDPS Y15, s0, s0 \
	VMULPS Y14, Y13, Y14 \
	VADDPS Y14, s1, s1

// STEP12 runs one 32-element step of a lane group, at byte offset o from the
// pass's cursors, into Y0-Y11.
#define STEP12(o) \
	VMOVUPS o(R11), Y12 \
	VMOVUPS o(R11)(R8*1), Y13 \
	XPROD(o(R12), Y0, Y6) \
	XPROD(o(R12)(R9*1), Y1, Y7) \
	XPROD(o(R12)(R9*2), Y2, Y8) \
	XPROD(o(R14), Y3, Y9) \
	XPROD(o(R14)(R9*1), Y4, Y10) \
	XPROD(o(R14)(R9*2), Y5, Y11)

// GPASS12 runs lane group g (byte offset off) through the row into Y0-Y11,
// two steps per iteration (an odd step first): the loop's pointer updates and
// branch are a tenth of the step's instructions, and Zen 3 issues at most six
// per cycle, about what the step's 24 multiplies and adds need anyway.
#define GPASS12(label, even, done, off) \
	LEAQ off(SI), R11 \
	LEAQ off(DI), R12 \
	LEAQ (R12)(R10*1), R14 \
	MOVQ CX, R13 \
	ZEROS8 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	SHRQ $1, R13 \
	JCC  even \
	STEP12(0) \
	ADDQ $128, R11 \
	ADDQ $128, R12 \
	ADDQ $128, R14 \
even: \
	TESTQ R13, R13 \
	JZ   done \
label: \
	STEP12(0) \
	STEP12(128) \
	ADDQ $256, R11 \
	ADDQ $256, R12 \
	ADDQ $256, R14 \
	DECQ R13 \
	JNZ  label \
done:

// SAVE12 stores Y0-Y11 at frame offset base.
#define SAVE12(base) \
	SAVE8(base) \
	VMOVUPS Y8, base+256(SP) \
	VMOVUPS Y9, base+288(SP) \
	VMOVUPS Y10, base+320(SP) \
	VMOVUPS Y11, base+352(SP)

// FIRST12 sets Yi = frame[base + 32i] + Yi for i < 12, through Y12.
#define FIRST12(base) \
	FIRST8T(base, Y12) \
	FIRST1(base, 256, Y8, Y12) \
	FIRST1(base, 288, Y9, Y12) \
	FIRST1(base, 320, Y10, Y12) \
	FIRST1(base, 352, Y11, Y12)

TEXT ·dotF32x12AVX2(SB), NOSPLIT, $768-48
	ARGS
	// PASSES' order and sums, with GPASS12's labels.
	GPASS12(p0, p0even, p0done, 0)
	SAVE12(0)
	GPASS12(p1, p1even, p1done, 32)
	SAVE12(384)
	GPASS12(p2, p2even, p2done, 64)
	FIRST12(0)
	SAVE12(0)
	GPASS12(p3, p3even, p3done, 96)
	FIRST12(384)
	FIRST12(0)
	// Y(6j+k) holds product 6j+k's eight lanes; reduce eight, then four.
	HALVES(Y0, Y1, Y12, Y15)
	HALVES(Y2, Y3, Y13, Y15)
	HALVES(Y4, Y5, Y14, Y15)
	HALVES(Y6, Y7, Y0, Y15)
	HALVES(Y8, Y9, Y1, Y15)
	HALVES(Y10, Y11, Y2, Y15)
	PAIRS(Y12, Y13, Y3, Y15)
	PAIRS(Y14, Y0, Y4, Y15)
	PAIRS(Y1, Y2, Y5, Y15)
	VMOVUPS reduce8Perm<>(SB), Y10
	FINAL8(Y3, Y4, Y6, Y7)
	VPERMPS Y6, Y10, Y7
	VMOVUPS Y7, (DX)
	FINAL8(Y5, Y5, Y8, Y9)
	VPERMPS Y8, Y10, Y9
	VMOVUPS X9, 32(DX)
	VZEROUPPER
	RET
