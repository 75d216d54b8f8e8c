//go:build amd64 && !purego

#include "textflag.h"
#include "reduce8_amd64.h"

// func groupScores64AVX2(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
// func groupScores128AVX2(… the same)
//
// groupScores64AVX512 and its head-dim-128 twin on AVX2 alone, eight keys a
// block: out[g·ostride + j] = dot(q_g, k_j)·scale for query heads g < heads
// (head dim hd = 64 or 128) and keys j < 8·blocks, bit for bit what dot and
// the float32 multiply give.
//
// A head's query (its first 64 floats, as eight runs of 8) stays in Y0-Y7 while
// the block's keys go past it; head dim 128 reads its second half from memory.
// dot's lane l is (0 + q[l]·k[l]) + q[l+32]·k[l+32] (+ … for 128); the lanes
// 0-7, 8-15, 16-23, 24-31 (a, b, c, d) are then added (a + c) + (b + d), which
// happens here per key as the products come, into one register; the horizontal
// steps run for eight keys at once (reduce8_amd64.h). As in the AVX-512 kernel,
// a chain starts from its first product instead of 0 + product, which only
// turns a +0 into a −0 that the final + 0 turns back (see attn_amd64.s).
//
// Registers: SI q of head 0, BX the block's first key, R8 kstride, R9
// 3·kstride and R10 4·kstride in bytes, CX blocks left, DI out for head 0 and
// this block, R11 ostride in bytes, R12 this head's q, R13 this head's out, AX
// heads left, R14 the current four keys, DX zero (an index); Y0-Y7 q, Y8-Y11
// four keys' lane sums, Y12 keys 0-3 after PAIRS, Y13-Y15 products and shuffles.

// KEY64 sets y to the eight lane sums (a + c) + (b + d) of the key at b + i·s.
#define KEY64(b, i, s, y) \
	VMULPS 0(b)(i*s), Y0, y \
	VMULPS 128(b)(i*s), Y4, Y13 \
	VADDPS Y13, y, y \
	VMULPS 64(b)(i*s), Y2, Y14 \
	VMULPS 192(b)(i*s), Y6, Y13 \
	VADDPS Y13, Y14, Y14 \
	VADDPS Y14, y, y \
	VMULPS 32(b)(i*s), Y1, Y14 \
	VMULPS 160(b)(i*s), Y5, Y13 \
	VADDPS Y13, Y14, Y14 \
	VMULPS 96(b)(i*s), Y3, Y15 \
	VMULPS 224(b)(i*s), Y7, Y13 \
	VADDPS Y13, Y15, Y15 \
	VADDPS Y15, Y14, Y14 \
	VADDPS Y14, y, y

// QHI adds q's run at byte off (from memory) times the key's to chain c.
#define QHI(b, i, s, off, c) \
	VMOVUPS off(R12), Y13 \
	VMULPS off(b)(i*s), Y13, Y13 \
	VADDPS Y13, c, c

// KEY128 is KEY64 for head dim 128: each lane's chain has four products.
#define KEY128(b, i, s, y) \
	VMULPS 0(b)(i*s), Y0, y \
	VMULPS 128(b)(i*s), Y4, Y13 \
	VADDPS Y13, y, y \
	QHI(b, i, s, 256, y) \
	QHI(b, i, s, 384, y) \
	VMULPS 64(b)(i*s), Y2, Y14 \
	VMULPS 192(b)(i*s), Y6, Y13 \
	VADDPS Y13, Y14, Y14 \
	QHI(b, i, s, 320, Y14) \
	QHI(b, i, s, 448, Y14) \
	VADDPS Y14, y, y \
	VMULPS 32(b)(i*s), Y1, Y14 \
	VMULPS 160(b)(i*s), Y5, Y13 \
	VADDPS Y13, Y14, Y14 \
	QHI(b, i, s, 288, Y14) \
	QHI(b, i, s, 416, Y14) \
	VMULPS 96(b)(i*s), Y3, Y15 \
	VMULPS 224(b)(i*s), Y7, Y13 \
	VADDPS Y13, Y15, Y15 \
	QHI(b, i, s, 352, Y15) \
	QHI(b, i, s, 480, Y15) \
	VADDPS Y15, Y14, Y14 \
	VADDPS Y14, y, y

// QUAD4 scores the four keys at R14, R14+kstride, … into d (PAIRS' layout).
#define QUAD4(KEY, d) \
	KEY(R14, DX, 1, Y8) \
	KEY(R14, R8, 1, Y9) \
	KEY(R14, R8, 2, Y10) \
	KEY(R14, R9, 1, Y11) \
	HALVES(Y8, Y9, Y13, Y14) \
	HALVES(Y10, Y11, Y15, Y14) \
	PAIRS(Y13, Y15, d, Y14)

// SCORES8 is the body of both kernels: KEY scores a key, qbytes is a head's
// query in bytes.
#define SCORES8(KEY, qbytes) \
	MOVQ q+0(FP), SI \
	MOVQ k+16(FP), BX \
	MOVQ kstride+24(FP), R8 \
	SHLQ $2, R8 \
	LEAQ (R8)(R8*2), R9 \
	MOVQ R8, R10 \
	SHLQ $2, R10 \
	MOVQ blocks+32(FP), CX \
	MOVQ out+48(FP), DI \
	MOVQ ostride+56(FP), R11 \
	SHLQ $2, R11 \
	XORQ DX, DX \
block: \
	MOVQ SI, R12 \
	MOVQ DI, R13 \
	MOVQ heads+8(FP), AX \
head: \
	VMOVUPS 0(R12), Y0 \
	VMOVUPS 32(R12), Y1 \
	VMOVUPS 64(R12), Y2 \
	VMOVUPS 96(R12), Y3 \
	VMOVUPS 128(R12), Y4 \
	VMOVUPS 160(R12), Y5 \
	VMOVUPS 192(R12), Y6 \
	VMOVUPS 224(R12), Y7 \
	MOVQ BX, R14 \
	QUAD4(KEY, Y12) \
	ADDQ R10, R14 \
	QUAD4(KEY, Y8) \
	FINAL8(Y12, Y8, Y13, Y14) \
	VXORPS Y15, Y15, Y15 \
	VADDPS Y15, Y13, Y13 \
	VBROADCASTSS scale+40(FP), Y15 \
	VMULPS Y15, Y13, Y13 \
	VMOVUPS reduce8Perm<>(SB), Y15 \
	VPERMPS Y13, Y15, Y14 \
	VMOVUPS Y14, (R13) \
	ADDQ $qbytes, R12 \
	ADDQ R11, R13 \
	DECQ AX \
	JNZ  head \
	LEAQ (BX)(R10*2), BX \
	ADDQ $32, DI \
	DECQ CX \
	JNZ  block \
	VZEROUPPER \
	RET

TEXT ·groupScores64AVX2(SB), NOSPLIT, $0-64
	SCORES8(KEY64, 256)

TEXT ·groupScores128AVX2(SB), NOSPLIT, $0-64
	SCORES8(KEY128, 512)
