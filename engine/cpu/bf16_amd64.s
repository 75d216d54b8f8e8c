//go:build amd64 && !purego

#include "textflag.h"

// BF16 kernels (see the contract in bf16.go). One call computes a 32-row weight
// panel (SI: per pair, 128 bytes = 32 rows' dwords) against a block of nr packed
// tokens (DI: per pair, nr dwords), k2 pairs deep. Accumulators: token j's rows
// 0-15 in Z(8+2j), rows 16-31 in Z(9+2j), so 12 tokens use Z8-Z31; Z0/Z1 hold the
// panel's pair. Each VDPBF16PS adds a token's broadcast pair to 16 rows.
//
// The Go assembler has no AVX512_BF16 mnemonics, so DPBCST emits
// VDPBF16PS Z(acc), Z(src), disp*4(DI){1to16} as bytes: EVEX (62 P0 P1 P2),
// opcode 0F38 52 with prefix F3, W0, L'L=512, b=1 (a 32-bit broadcast), ModRM
// mod=01 (disp8, compressed by 4), rm=DI. acc and src are register numbers 0-31;
// P0 carries acc's bits 3 (R) and 4 (R') inverted, P1 src's low four bits
// inverted (vvvv), P2 src's bit 4 inverted (V').
#define DPBCST(acc, src, disp) \
	BYTE $0x62; \
	BYTE $((((acc>>3)&1)^1)<<7 | 0x60 | (((acc>>4)&1)^1)<<4 | 0x02); \
	BYTE $(((src&15)^15)<<3 | 0x06); \
	BYTE $(0x50 | (((src>>4)&1)^1)<<3); \
	BYTE $0x52; \
	BYTE $(0x40 | (acc&7)<<3 | 0x07); \
	BYTE $(disp)

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
	MOVL mask+48(FP), AX \
	KMOVW AX, K1 \
	SHRL $16, AX \
	KMOVW AX, K2 \
	MOVL biasMask+52(FP), AX \
	KMOVW AX, K3 \
	SHRL $16, AX \
	KMOVW AX, K4 \
	MOVL accMask+56(FP), AX \
	KMOVW AX, K5 \
	SHRL $16, AX \
	KMOVW AX, K6

// func bf16Kernel12(w *uint32, x *uint32, k2 int, out *float32, ostride int, bias *float32, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel12(SB), NOSPLIT, $0-60
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ k2+16(FP), CX
	MOVQ out+24(FP), R10
	MOVQ ostride+32(FP), R8
	MOVQ bias+40(FP), R9
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
	DPBCST(8, 0, 0)
	DPBCST(9, 1, 0)
	DPBCST(10, 0, 1)
	DPBCST(11, 1, 1)
	DPBCST(12, 0, 2)
	DPBCST(13, 1, 2)
	DPBCST(14, 0, 3)
	DPBCST(15, 1, 3)
	DPBCST(16, 0, 4)
	DPBCST(17, 1, 4)
	DPBCST(18, 0, 5)
	DPBCST(19, 1, 5)
	DPBCST(20, 0, 6)
	DPBCST(21, 1, 6)
	DPBCST(22, 0, 7)
	DPBCST(23, 1, 7)
	DPBCST(24, 0, 8)
	DPBCST(25, 1, 8)
	DPBCST(26, 0, 9)
	DPBCST(27, 1, 9)
	DPBCST(28, 0, 10)
	DPBCST(29, 1, 10)
	DPBCST(30, 0, 11)
	DPBCST(31, 1, 11)
	ADDQ $128, SI
	ADDQ $48, DI
	DECQ CX
	JNZ loop12
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

// func bf16Kernel4(w *uint32, x *uint32, k2 int, out *float32, ostride int, bias *float32, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel4(SB), NOSPLIT, $0-60
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ k2+16(FP), CX
	MOVQ out+24(FP), R10
	MOVQ ostride+32(FP), R8
	MOVQ bias+40(FP), R9
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
	DPBCST(8, 0, 0)
	DPBCST(9, 1, 0)
	DPBCST(10, 0, 1)
	DPBCST(11, 1, 1)
	DPBCST(12, 0, 2)
	DPBCST(13, 1, 2)
	DPBCST(14, 0, 3)
	DPBCST(15, 1, 3)
	ADDQ $128, SI
	ADDQ $16, DI
	DECQ CX
	JNZ loop4
	MASKS
	STORE2(Z8, Z9)
	STORE2(Z10, Z11)
	STORE2(Z12, Z13)
	STORE2(Z14, Z15)
	VZEROUPPER
	RET

// func bf16Kernel1(w *uint32, x *uint32, k2 int, out *float32, ostride int, bias *float32, mask, biasMask, accMask uint32)
TEXT ·bf16Kernel1(SB), NOSPLIT, $0-60
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ k2+16(FP), CX
	MOVQ out+24(FP), R10
	MOVQ ostride+32(FP), R8
	MOVQ bias+40(FP), R9
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
loop1:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	DPBCST(8, 0, 0)
	DPBCST(9, 1, 0)
	ADDQ $128, SI
	ADDQ $4, DI
	DECQ CX
	JNZ loop1
	MASKS
	STORE2(Z8, Z9)
	VZEROUPPER
	RET
