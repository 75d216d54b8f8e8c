//go:build amd64 && !purego

#include "textflag.h"

// BF16-precision kernels for CPUs with AVX2 + FMA but no AVX512_BF16 (see the
// contract in bf16.go, and bf16FMAExact in bf16_fma.go for when they apply). They
// read the same 32-row weight panels as the AVX512_BF16 kernels (SI: per pair,
// 128 bytes = 32 rows' dwords, the even element in the low half) and activations
// already rounded to bfloat16 and widened to float32 (one row of 2·k2 floats per
// token, rows S bytes apart). Per pair each accumulator takes the odd element's
// product, then the even one's, one VFMADD231PS each: the exact bfloat16 product
// added to the chain with one rounding, which is dpStep wherever no step's
// result is subnormal (bf16FMAExact). VPAND with 0xFFFF0000 (Y15) gives the odd
// elements as float32, VPSLLD $16 the even ones.
//
// bf16FMAKernel6/4 take 16 rows (half a panel: the caller offsets w, out, bias
// and part) × 6 or 4 tokens: token j's rows in Y(2j), Y(2j+1); Y12/Y13 the
// weights, Y14 the broadcast activation. bf16FMAKernel2/1 take the whole panel
// × 2 or 1 tokens: token j's rows in Y(4j)..Y(4j+3), weights in Y8-Y11. Tokens
// are read at DI + j·S (BX = S, DX = 3S, R11 = DI + 4S).
//
// flags: bit 0 starts the chains from part (token j's 32 rows at 128·j bytes,
// the caller offsetting half panels by 64) instead of +0; bit 1 finishes into
// out (token j at R10 + j·ostride), else stores the sums back to part; bit 2
// adds the bias (y + bias), bit 3 accumulates (out + y, out first as store
// does). All rows are stored: a partial panel is finished by the caller.

#define ARGS \
	MOVQ w+0(FP), SI; \
	MOVQ x+8(FP), DI; \
	MOVQ xstride+16(FP), BX; \
	LEAQ (BX)(BX*2), DX; \
	LEAQ (DI)(BX*4), R11; \
	MOVQ k2+24(FP), CX; \
	MOVQ out+32(FP), R10; \
	MOVQ ostride+40(FP), R8; \
	MOVQ bias+48(FP), R9; \
	MOVQ part+56(FP), R13; \
	MOVQ flags+64(FP), AX; \
	VPCMPEQD Y15, Y15, Y15; \
	VPSLLD $16, Y15, Y15

// OUTPTRS points SI, DI, R11, BX, CX at tokens 1-5's outputs (R10 is token 0's).
#define OUTPTRS \
	LEAQ (R10)(R8*1), SI; \
	LEAQ (R10)(R8*2), DI; \
	LEAQ (SI)(R8*2), R11; \
	LEAQ (DI)(R8*2), BX; \
	LEAQ (R11)(R8*2), CX

#define ODD16 \
	VPAND (SI), Y15, Y12; \
	VPAND 32(SI), Y15, Y13

#define EVEN16 \
	VMOVDQU (SI), Y12; \
	VPSLLD $16, Y12, Y12; \
	VMOVDQU 32(SI), Y13; \
	VPSLLD $16, Y13, Y13

#define TOK16(addr, lo, hi) \
	VBROADCASTSS addr, Y14; \
	VFMADD231PS Y14, Y12, lo; \
	VFMADD231PS Y14, Y13, hi

#define ODD32 \
	VPAND (SI), Y15, Y8; \
	VPAND 32(SI), Y15, Y9; \
	VPAND 64(SI), Y15, Y10; \
	VPAND 96(SI), Y15, Y11

#define EVEN32 \
	VMOVDQU (SI), Y8; \
	VPSLLD $16, Y8, Y8; \
	VMOVDQU 32(SI), Y9; \
	VPSLLD $16, Y9, Y9; \
	VMOVDQU 64(SI), Y10; \
	VPSLLD $16, Y10, Y10; \
	VMOVDQU 96(SI), Y11; \
	VPSLLD $16, Y11, Y11

#define TOK32(addr, a0, a1, a2, a3) \
	VBROADCASTSS addr, Y14; \
	VFMADD231PS Y14, Y8, a0; \
	VFMADD231PS Y14, Y9, a1; \
	VFMADD231PS Y14, Y10, a2; \
	VFMADD231PS Y14, Y11, a3

// ZERO16 starts 16 rows of sums (two registers) from +0.
#define ZERO16(lo, hi) \
	VXORPS lo, lo, lo; \
	VXORPS hi, hi, hi

// BIAS16 adds the bias's 16 rows (Y12, Y13; BIASLOAD16) to one token's sums.
#define BIASLOAD16 \
	VMOVUPS (R9), Y12; \
	VMOVUPS 32(R9), Y13

#define BIAS16(lo, hi) \
	VADDPS Y12, lo, lo; \
	VADDPS Y13, hi, hi

// BIAS32 adds the bias's 32 rows (Y8-Y11; BIASLOAD32) to one token's sums.
#define BIASLOAD32 \
	VMOVUPS (R9), Y8; \
	VMOVUPS 32(R9), Y9; \
	VMOVUPS 64(R9), Y10; \
	VMOVUPS 96(R9), Y11

#define BIAS32(a0, a1, a2, a3) \
	VADDPS Y8, a0, a0; \
	VADDPS Y9, a1, a1; \
	VADDPS Y10, a2, a2; \
	VADDPS Y11, a3, a3

#define PLOAD16(lo, hi, off) \
	VMOVUPS off(R13), lo; \
	VMOVUPS off+32(R13), hi

#define PSTORE16(lo, hi, off) \
	VMOVUPS lo, off(R13); \
	VMOVUPS hi, off+32(R13)

#define OUTADD16(lo, hi, p) \
	VMOVUPS (p), Y12; \
	VADDPS lo, Y12, lo; \
	VMOVUPS 32(p), Y13; \
	VADDPS hi, Y13, hi

#define STORE16(lo, hi, p) \
	VMOVUPS lo, (p); \
	VMOVUPS hi, 32(p)

#define OUTADD32(a0, a1, a2, a3, p) \
	VMOVUPS (p), Y8; \
	VADDPS a0, Y8, a0; \
	VMOVUPS 32(p), Y9; \
	VADDPS a1, Y9, a1; \
	VMOVUPS 64(p), Y10; \
	VADDPS a2, Y10, a2; \
	VMOVUPS 96(p), Y11; \
	VADDPS a3, Y11, a3

#define STORE32(a0, a1, a2, a3, p) \
	VMOVUPS a0, (p); \
	VMOVUPS a1, 32(p); \
	VMOVUPS a2, 64(p); \
	VMOVUPS a3, 96(p)

// func bf16FMAKernel6(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel6(SB), NOSPLIT, $0-72
	ARGS
	TESTQ $1, AX
	JZ zero6
	PLOAD16(Y0, Y1, 0)
	PLOAD16(Y2, Y3, 128)
	PLOAD16(Y4, Y5, 256)
	PLOAD16(Y6, Y7, 384)
	PLOAD16(Y8, Y9, 512)
	PLOAD16(Y10, Y11, 640)
	JMP loop6
zero6:
	ZERO16(Y0, Y1)
	ZERO16(Y2, Y3)
	ZERO16(Y4, Y5)
	ZERO16(Y6, Y7)
	ZERO16(Y8, Y9)
	ZERO16(Y10, Y11)
loop6:
	ODD16
	TOK16(4(DI), Y0, Y1)
	TOK16(4(DI)(BX*1), Y2, Y3)
	TOK16(4(DI)(BX*2), Y4, Y5)
	TOK16(4(DI)(DX*1), Y6, Y7)
	TOK16(4(R11), Y8, Y9)
	TOK16(4(R11)(BX*1), Y10, Y11)
	EVEN16
	TOK16((DI), Y0, Y1)
	TOK16((DI)(BX*1), Y2, Y3)
	TOK16((DI)(BX*2), Y4, Y5)
	TOK16((DI)(DX*1), Y6, Y7)
	TOK16((R11), Y8, Y9)
	TOK16((R11)(BX*1), Y10, Y11)
	ADDQ $128, SI
	ADDQ $8, DI
	ADDQ $8, R11
	DECQ CX
	JNZ loop6
	TESTQ $2, AX
	JNZ final6
	PSTORE16(Y0, Y1, 0)
	PSTORE16(Y2, Y3, 128)
	PSTORE16(Y4, Y5, 256)
	PSTORE16(Y6, Y7, 384)
	PSTORE16(Y8, Y9, 512)
	PSTORE16(Y10, Y11, 640)
	VZEROUPPER
	RET
final6:
	OUTPTRS
	TESTQ $4, AX
	JZ nobias6
	BIASLOAD16
	BIAS16(Y0, Y1)
	BIAS16(Y2, Y3)
	BIAS16(Y4, Y5)
	BIAS16(Y6, Y7)
	BIAS16(Y8, Y9)
	BIAS16(Y10, Y11)
nobias6:
	TESTQ $8, AX
	JZ store6
	OUTADD16(Y0, Y1, R10)
	OUTADD16(Y2, Y3, SI)
	OUTADD16(Y4, Y5, DI)
	OUTADD16(Y6, Y7, R11)
	OUTADD16(Y8, Y9, BX)
	OUTADD16(Y10, Y11, CX)
store6:
	STORE16(Y0, Y1, R10)
	STORE16(Y2, Y3, SI)
	STORE16(Y4, Y5, DI)
	STORE16(Y6, Y7, R11)
	STORE16(Y8, Y9, BX)
	STORE16(Y10, Y11, CX)
	VZEROUPPER
	RET

// func bf16FMAKernel4(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel4(SB), NOSPLIT, $0-72
	ARGS
	TESTQ $1, AX
	JZ zero4
	PLOAD16(Y0, Y1, 0)
	PLOAD16(Y2, Y3, 128)
	PLOAD16(Y4, Y5, 256)
	PLOAD16(Y6, Y7, 384)
	JMP loop4
zero4:
	ZERO16(Y0, Y1)
	ZERO16(Y2, Y3)
	ZERO16(Y4, Y5)
	ZERO16(Y6, Y7)
loop4:
	ODD16
	TOK16(4(DI), Y0, Y1)
	TOK16(4(DI)(BX*1), Y2, Y3)
	TOK16(4(DI)(BX*2), Y4, Y5)
	TOK16(4(DI)(DX*1), Y6, Y7)
	EVEN16
	TOK16((DI), Y0, Y1)
	TOK16((DI)(BX*1), Y2, Y3)
	TOK16((DI)(BX*2), Y4, Y5)
	TOK16((DI)(DX*1), Y6, Y7)
	ADDQ $128, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop4
	TESTQ $2, AX
	JNZ final4
	PSTORE16(Y0, Y1, 0)
	PSTORE16(Y2, Y3, 128)
	PSTORE16(Y4, Y5, 256)
	PSTORE16(Y6, Y7, 384)
	VZEROUPPER
	RET
final4:
	OUTPTRS
	TESTQ $4, AX
	JZ nobias4
	BIASLOAD16
	BIAS16(Y0, Y1)
	BIAS16(Y2, Y3)
	BIAS16(Y4, Y5)
	BIAS16(Y6, Y7)
nobias4:
	TESTQ $8, AX
	JZ store4
	OUTADD16(Y0, Y1, R10)
	OUTADD16(Y2, Y3, SI)
	OUTADD16(Y4, Y5, DI)
	OUTADD16(Y6, Y7, R11)
store4:
	STORE16(Y0, Y1, R10)
	STORE16(Y2, Y3, SI)
	STORE16(Y4, Y5, DI)
	STORE16(Y6, Y7, R11)
	VZEROUPPER
	RET

// func bf16FMAKernel2(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel2(SB), NOSPLIT, $0-72
	ARGS
	TESTQ $1, AX
	JZ zero32x2
	PLOAD16(Y0, Y1, 0)
	PLOAD16(Y2, Y3, 64)
	PLOAD16(Y4, Y5, 128)
	PLOAD16(Y6, Y7, 192)
	JMP loop32x2
zero32x2:
	ZERO16(Y0, Y1)
	ZERO16(Y2, Y3)
	ZERO16(Y4, Y5)
	ZERO16(Y6, Y7)
loop32x2:
	ODD32
	TOK32(4(DI), Y0, Y1, Y2, Y3)
	TOK32(4(DI)(BX*1), Y4, Y5, Y6, Y7)
	EVEN32
	TOK32((DI), Y0, Y1, Y2, Y3)
	TOK32((DI)(BX*1), Y4, Y5, Y6, Y7)
	ADDQ $128, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop32x2
	TESTQ $2, AX
	JNZ final32x2
	PSTORE16(Y0, Y1, 0)
	PSTORE16(Y2, Y3, 64)
	PSTORE16(Y4, Y5, 128)
	PSTORE16(Y6, Y7, 192)
	VZEROUPPER
	RET
final32x2:
	OUTPTRS
	TESTQ $4, AX
	JZ nobias32x2
	BIASLOAD32
	BIAS32(Y0, Y1, Y2, Y3)
	BIAS32(Y4, Y5, Y6, Y7)
nobias32x2:
	TESTQ $8, AX
	JZ store32x2
	OUTADD32(Y0, Y1, Y2, Y3, R10)
	OUTADD32(Y4, Y5, Y6, Y7, SI)
store32x2:
	STORE32(Y0, Y1, Y2, Y3, R10)
	STORE32(Y4, Y5, Y6, Y7, SI)
	VZEROUPPER
	RET

// func bf16FMAKernel1(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel1(SB), NOSPLIT, $0-72
	ARGS
	TESTQ $1, AX
	JZ zero32x1
	PLOAD16(Y0, Y1, 0)
	PLOAD16(Y2, Y3, 64)
	JMP loop32x1
zero32x1:
	ZERO16(Y0, Y1)
	ZERO16(Y2, Y3)
loop32x1:
	ODD32
	TOK32(4(DI), Y0, Y1, Y2, Y3)
	EVEN32
	TOK32((DI), Y0, Y1, Y2, Y3)
	ADDQ $128, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop32x1
	TESTQ $2, AX
	JNZ final32x1
	PSTORE16(Y0, Y1, 0)
	PSTORE16(Y2, Y3, 64)
	VZEROUPPER
	RET
final32x1:
	OUTPTRS
	TESTQ $4, AX
	JZ nobias32x1
	BIASLOAD32
	BIAS32(Y0, Y1, Y2, Y3)
nobias32x1:
	TESTQ $8, AX
	JZ store32x1
	OUTADD32(Y0, Y1, Y2, Y3, R10)
store32x1:
	STORE32(Y0, Y1, Y2, Y3, R10)
	VZEROUPPER
	RET

