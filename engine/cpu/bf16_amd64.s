//go:build amd64 && !purego

#include "textflag.h"

// BF16 kernels (see the contract in bf16.go). One call computes a 32-row weight
// panel (SI: per pair, 128 bytes = 32 rows' dwords) against nr = 12, 4 or 1
// tokens of packed bfloat16 activations (one row of k2 dwords per token, rows S
// bytes apart), k2 pairs deep. Accumulators: token j's rows 0-15 in Z(8+2j), rows
// 16-31 in Z(9+2j), so 12 tokens use Z8-Z31; Z0/Z1 hold the panel's pair. Each
// VDPBF16PS adds one token's broadcast pair to 16 rows. Token j = 4a+b is read at
// T(4a) + b·S: T0 = DI, T4 = R11, T8 = R12, with BX = S and DX = 3S as indices.
//
// k-blocking: flags bit 0 starts the accumulators from the partial sums at R13
// (token j's 32 rows at 128·j bytes) instead of +0, continuing the same chain;
// without bit 1 (final) the sums are stored back there instead of to out.
//
// The Go assembler has no AVX512_BF16 mnemonics, so DPB emits
// VDPBF16PS Z(acc), Z(src), (base)(index*scale){1to16} as bytes: EVEX (62 P0 P1 P2),
// opcode 0F38 52 with prefix F3, W0, L'L = 512, b = 1 (a 32-bit broadcast);
// ModRM mod = 00, rm = 100 (a SIB byte follows). P0 carries acc's bits 3 (R) and 4
// (R'), index's bit 3 (X) and base's bit 3 (B), inverted; P1 src's low four bits
// inverted (vvvv); P2 src's bit 4 inverted (V'). index 4 means none; log2scale is
// 0 (×1) or 1 (×2). base must not be BP or R13 (mod 00 would mean no base).
#define DPB(acc, src, base, index, log2scale) \
	BYTE $0x62; \
	BYTE $((((acc>>3)&1)^1)<<7 | (((index>>3)&1)^1)<<6 | (((base>>3)&1)^1)<<5 | (((acc>>4)&1)^1)<<4 | 0x02); \
	BYTE $(((src&15)^15)<<3 | 0x06); \
	BYTE $(0x50 | (((src>>4)&1)^1)<<3); \
	BYTE $0x52; \
	BYTE $((acc&7)<<3 | 0x04); \
	BYTE $(log2scale<<6 | (index&7)<<3 | (base&7))

// Register numbers for DPB.
#define rDX 2
#define rBX 3
#define rNone 4
#define rDI 7
#define rR11 11
#define rR12 12

// TOKENS4(first, base) adds the pair of the four tokens at base to the
// accumulators from Z(first): offsets 0, S, 2S, 3S.
#define TOKENS4(a0, a1, a2, a3, a4, a5, a6, a7, base) \
	DPB(a0, 0, base, rNone, 0); DPB(a1, 1, base, rNone, 0); \
	DPB(a2, 0, base, rBX, 0); DPB(a3, 1, base, rBX, 0); \
	DPB(a4, 0, base, rBX, 1); DPB(a5, 1, base, rBX, 1); \
	DPB(a6, 0, base, rDX, 0); DPB(a7, 1, base, rDX, 0)

// STORE2 finishes one token's 32 rows at R10: add the bias (R9) where K3/K4 are
// set, then out + y where K5/K6 are set (out first, as store does), then store
// the rows K1/K2 mark valid. Masked-off lanes are never read or written.
#define STORE2(lo, hi) \
	VADDPS (R9), lo, K3, lo \
	VADDPS 64(R9), hi, K4, hi \
	VMOVUPS (R10), K5, Z2 \
	VMOVUPS 64(R10), K6, Z3 \
	VADDPS lo, Z2, K5, lo \
	VADDPS hi, Z3, K6, hi \
	VMOVUPS lo, K1, (R10) \
	VMOVUPS hi, K2, 64(R10) \
	ADDQ R8, R10

// MASKS loads the row masks: K1/K2 valid rows, K3/K4 bias, K5/K6 accumulate.
#define MASKS \
	MOVL mask+72(FP), AX \
	KMOVW AX, K1 \
	SHRL $16, AX \
	KMOVW AX, K2 \
	MOVL biasMask+76(FP), AX \
	KMOVW AX, K3 \
	SHRL $16, AX \
	KMOVW AX, K4 \
	MOVL accMask+80(FP), AX \
	KMOVW AX, K5 \
	SHRL $16, AX \
	KMOVW AX, K6

// ARGS loads the arguments: SI weights, DI/R11/R12 tokens 0/4/8, BX = S,
// DX = 3S, CX pairs, R10 out, R8 its token stride, R9 bias, R13 partial sums,
// AX flags.
#define ARGS \
	MOVQ w+0(FP), SI \
	MOVQ x+8(FP), DI \
	MOVQ xstride+16(FP), BX \
	LEAQ (BX)(BX*2), DX \
	LEAQ (DI)(BX*4), R11 \
	LEAQ (R11)(BX*4), R12 \
	MOVQ k2+24(FP), CX \
	MOVQ out+32(FP), R10 \
	MOVQ ostride+40(FP), R8 \
	MOVQ bias+48(FP), R9 \
	MOVQ part+56(FP), R13 \
	MOVQ flags+64(FP), AX

// func bf16Kernel12(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel12(SB), NOSPLIT, $0-84
	ARGS
	TESTQ $1, AX
	JZ zero12
	VMOVUPS 0(R13), Z8
	VMOVUPS 64(R13), Z9
	VMOVUPS 128(R13), Z10
	VMOVUPS 192(R13), Z11
	VMOVUPS 256(R13), Z12
	VMOVUPS 320(R13), Z13
	VMOVUPS 384(R13), Z14
	VMOVUPS 448(R13), Z15
	VMOVUPS 512(R13), Z16
	VMOVUPS 576(R13), Z17
	VMOVUPS 640(R13), Z18
	VMOVUPS 704(R13), Z19
	VMOVUPS 768(R13), Z20
	VMOVUPS 832(R13), Z21
	VMOVUPS 896(R13), Z22
	VMOVUPS 960(R13), Z23
	VMOVUPS 1024(R13), Z24
	VMOVUPS 1088(R13), Z25
	VMOVUPS 1152(R13), Z26
	VMOVUPS 1216(R13), Z27
	VMOVUPS 1280(R13), Z28
	VMOVUPS 1344(R13), Z29
	VMOVUPS 1408(R13), Z30
	VMOVUPS 1472(R13), Z31
	JMP loop12
zero12:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31
loop12:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	TOKENS4(8, 9, 10, 11, 12, 13, 14, 15, rDI)
	TOKENS4(16, 17, 18, 19, 20, 21, 22, 23, rR11)
	TOKENS4(24, 25, 26, 27, 28, 29, 30, 31, rR12)
	ADDQ $128, SI
	ADDQ $4, DI
	ADDQ $4, R11
	ADDQ $4, R12
	DECQ CX
	JNZ loop12
	MOVQ flags+64(FP), AX
	TESTQ $2, AX
	JNZ final12
	VMOVUPS Z8, 0(R13)
	VMOVUPS Z9, 64(R13)
	VMOVUPS Z10, 128(R13)
	VMOVUPS Z11, 192(R13)
	VMOVUPS Z12, 256(R13)
	VMOVUPS Z13, 320(R13)
	VMOVUPS Z14, 384(R13)
	VMOVUPS Z15, 448(R13)
	VMOVUPS Z16, 512(R13)
	VMOVUPS Z17, 576(R13)
	VMOVUPS Z18, 640(R13)
	VMOVUPS Z19, 704(R13)
	VMOVUPS Z20, 768(R13)
	VMOVUPS Z21, 832(R13)
	VMOVUPS Z22, 896(R13)
	VMOVUPS Z23, 960(R13)
	VMOVUPS Z24, 1024(R13)
	VMOVUPS Z25, 1088(R13)
	VMOVUPS Z26, 1152(R13)
	VMOVUPS Z27, 1216(R13)
	VMOVUPS Z28, 1280(R13)
	VMOVUPS Z29, 1344(R13)
	VMOVUPS Z30, 1408(R13)
	VMOVUPS Z31, 1472(R13)
	VZEROUPPER
	RET
final12:
	MASKS
	STORE2(Z8, Z9)
	STORE2(Z10, Z11)
	STORE2(Z12, Z13)
	STORE2(Z14, Z15)
	STORE2(Z16, Z17)
	STORE2(Z18, Z19)
	STORE2(Z20, Z21)
	STORE2(Z22, Z23)
	STORE2(Z24, Z25)
	STORE2(Z26, Z27)
	STORE2(Z28, Z29)
	STORE2(Z30, Z31)
	VZEROUPPER
	RET

// func bf16Kernel4(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel4(SB), NOSPLIT, $0-84
	ARGS
	TESTQ $1, AX
	JZ zero4
	VMOVUPS 0(R13), Z8
	VMOVUPS 64(R13), Z9
	VMOVUPS 128(R13), Z10
	VMOVUPS 192(R13), Z11
	VMOVUPS 256(R13), Z12
	VMOVUPS 320(R13), Z13
	VMOVUPS 384(R13), Z14
	VMOVUPS 448(R13), Z15
	JMP loop4
zero4:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
loop4:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	TOKENS4(8, 9, 10, 11, 12, 13, 14, 15, rDI)
	ADDQ $128, SI
	ADDQ $4, DI
	DECQ CX
	JNZ loop4
	MOVQ flags+64(FP), AX
	TESTQ $2, AX
	JNZ final4
	VMOVUPS Z8, 0(R13)
	VMOVUPS Z9, 64(R13)
	VMOVUPS Z10, 128(R13)
	VMOVUPS Z11, 192(R13)
	VMOVUPS Z12, 256(R13)
	VMOVUPS Z13, 320(R13)
	VMOVUPS Z14, 384(R13)
	VMOVUPS Z15, 448(R13)
	VZEROUPPER
	RET
final4:
	MASKS
	STORE2(Z8, Z9)
	STORE2(Z10, Z11)
	STORE2(Z12, Z13)
	STORE2(Z14, Z15)
	VZEROUPPER
	RET

// func bf16Kernel1(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel1(SB), NOSPLIT, $0-84
	ARGS
	TESTQ $1, AX
	JZ zero1
	VMOVUPS 0(R13), Z8
	VMOVUPS 64(R13), Z9
	JMP loop1
zero1:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
loop1:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	DPB(8, 0, rDI, rNone, 0); DPB(9, 1, rDI, rNone, 0)
	ADDQ $128, SI
	ADDQ $4, DI
	DECQ CX
	JNZ loop1
	MOVQ flags+64(FP), AX
	TESTQ $2, AX
	JNZ final1
	VMOVUPS Z8, 0(R13)
	VMOVUPS Z9, 64(R13)
	VZEROUPPER
	RET
final1:
	MASKS
	STORE2(Z8, Z9)
	VZEROUPPER
	RET
