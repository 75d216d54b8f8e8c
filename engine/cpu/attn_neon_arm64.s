//go:build arm64 && !purego

#include "textflag.h"
#include "neonenc_arm64.h"

// The attention block kernels on NEON (AdvSIMD): groupScores64AVX2 /
// groupScores128AVX2 with four-lane registers, and a weighted sum of two heads'
// 32 elements; the same float operations in the same order, so the same bits as dot and axpy
// (multiply then add, never FMLA). The instructions Go's assembler lacks come
// from neonenc_arm64.h.

// func groupScores64NEON(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
// func groupScores128NEON(… the same)
//
// out[g·ostride + j] = dot(q_g, k_j)·scale for query heads g < heads (head dim
// 64 or 128, q_g at q + g·hd) and keys j < 4·blocks (k_j at k + j·kstride),
// four keys a block. dot's lane l sums elements l, l+32, … of the head in
// order; lanes 4i…4i+3 (lane group i, i < 8) are one register, A_i. The
// tree of reduceLanes is then, per key, W = ((A0+A4) + (A2+A6)) + ((A1+A5) +
// (A3+A7)) (its v[0:4] + v[4:8]), and its last steps (w0+w2) + (w1+w3) run
// for the block's four keys at once: ZIP of two keys' W halves, one add,
// then FADDP. As in the AVX kernels, a lane's chain starts from its first
// product rather than 0 + product; that can turn only a +0 total into −0,
// which the final + 0 turns back (dot's total is never −0).
//
// A head's first 64 query floats stay in V0-V15 (element 4i in V(i)) while
// the block's keys go past; head dim 128 reads the rest from memory.
// Registers: R0 q of head 0, R1 the block's first key, R2 kstride in bytes,
// R3 blocks left, R4 out for head 0 and this block, R5 ostride in bytes,
// R6 heads left, R7 this head's q, R8 this head's out, R9-R12 the four keys;
// V16-V21 a key's lanes, V22-V25 the four keys' W, V30 zero, V31 scale.

// LANE64 sets V(t) (named ft) to lane group i of the key at b, with u (fu)
// as scratch.
#define LANE64(b, i, t, ft, u, fu) \
	FMOVQ (16*(i))(b), ft \
	FMUL4S(t, i, t) \
	FMOVQ (128+16*(i))(b), fu \
	FMUL4S(u, i+8, u) \
	FADD4S(t, t, u)

// LANE128 is LANE64 for head dim 128: the chain's third and fourth products
// take their query elements from memory (R7); V20, V21 scratch.
#define LANE128(b, i, t, ft) \
	LANE64(b, i, t, ft, 20, F20) \
	FMOVQ (256+16*(i))(b), F20 \
	FMOVQ (256+16*(i))(R7), F21 \
	FMUL4S(20, 21, 20) \
	FADD4S(t, t, 20) \
	FMOVQ (384+16*(i))(b), F20 \
	FMOVQ (384+16*(i))(R7), F21 \
	FMUL4S(20, 21, 20) \
	FADD4S(t, t, 20)

#define L64(b, i, t, ft) LANE64(b, i, t, ft, 20, F20)
#define L128(b, i, t, ft) LANE128(b, i, t, ft)

// KEY sets V(w) to the key at b's W, building the lanes with L.
#define KEY(L, b, w) \
	L(b, 0, 16, F16) \
	L(b, 4, 17, F17) \
	FADD4S(16, 16, 17) \
	L(b, 2, 17, F17) \
	L(b, 6, 18, F18) \
	FADD4S(17, 17, 18) \
	FADD4S(16, 16, 17) \
	L(b, 1, 17, F17) \
	L(b, 5, 18, F18) \
	FADD4S(17, 17, 18) \
	L(b, 3, 18, F18) \
	L(b, 7, 19, F19) \
	FADD4S(18, 18, 19) \
	FADD4S(17, 17, 18) \
	FADD4S(w, 16, 17)

// SCORES is the body of both kernels: L builds a lane group, qbytes is a
// head's query in bytes.
#define SCORES(L, qbytes) \
	MOVD q+0(FP), R0 \
	MOVD k+16(FP), R1 \
	MOVD kstride+24(FP), R2 \
	LSL  $2, R2 \
	MOVD blocks+32(FP), R3 \
	FMOVS scale+40(FP), F31 \
	VDUP V31.S[0], V31.S4 \
	VEOR V30.B16, V30.B16, V30.B16 \
	MOVD out+48(FP), R4 \
	MOVD ostride+56(FP), R5 \
	LSL  $2, R5 \
block: \
	MOVD R0, R7 \
	MOVD R4, R8 \
	MOVD heads+8(FP), R6 \
	ADD  R2, R1, R10 \
	ADD  R2, R10, R11 \
	ADD  R2, R11, R12 \
head: \
	VLD1 (R7), [V0.S4, V1.S4, V2.S4, V3.S4] \
	ADD  $64, R7, R9 \
	VLD1.P 64(R9), [V4.S4, V5.S4, V6.S4, V7.S4] \
	VLD1.P 64(R9), [V8.S4, V9.S4, V10.S4, V11.S4] \
	VLD1 (R9), [V12.S4, V13.S4, V14.S4, V15.S4] \
	KEY(L, R1, 22) \
	KEY(L, R10, 23) \
	KEY(L, R11, 24) \
	KEY(L, R12, 25) \
	ZIP1D(16, 22, 23) \
	ZIP2D(17, 22, 23) \
	FADD4S(16, 16, 17) \
	ZIP1D(18, 24, 25) \
	ZIP2D(19, 24, 25) \
	FADD4S(18, 18, 19) \
	FADDP4S(16, 16, 18) \
	FADD4S(16, 16, 30) \
	FMUL4S(16, 16, 31) \
	FMOVQ F16, (R8) \
	ADD  $qbytes, R7 \
	ADD  R5, R8 \
	SUBS $1, R6, R6 \
	BNE  head \
	ADD  R2<<2, R1, R1 \
	ADD  $16, R4 \
	SUBS $1, R3, R3 \
	BNE  block \
	RET

TEXT ·groupScores64NEON(SB), NOSPLIT, $0-64
	SCORES(L64, 256)

TEXT ·groupScores128NEON(SB), NOSPLIT, $0-64
	SCORES(L128, 512)

// func weightedSumGroup32NEON(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int)
//
// For heads g < heads (1 or 2) and elements
// i < 32, out[g·ostride + i] += p_g[j]·v[j·vstride + i] for j = 0 … n−1 in
// order (p_g = p + g·pstride, n > 0), each a rounded product then an add:
// axpy's chain, continuing from out. Head g's 32 sums stay in V(8g)-V(8g+7)
// through all positions, so a value row is loaded once for both heads.
// Registers: R0 out, R1 ostride in bytes, R2 head 0's p, R3 head 1's p, R4
// this value row, R5 vstride − 64 in bytes, R6 positions left, R7 head 1's
// out; V16-V23 the value row, V24-V25 the heads' weights, V26-V27 products.

// WHEAD adds the weight in V(a) times the value row to V(s)…V(s+7).
#define WHEAD(a, s) \
	FMUL4S(26, a, 16) \
	FADD4S(s, s, 26) \
	FMUL4S(27, a, 17) \
	FADD4S(s+1, s+1, 27) \
	FMUL4S(26, a, 18) \
	FADD4S(s+2, s+2, 26) \
	FMUL4S(27, a, 19) \
	FADD4S(s+3, s+3, 27) \
	FMUL4S(26, a, 20) \
	FADD4S(s+4, s+4, 26) \
	FMUL4S(27, a, 21) \
	FADD4S(s+5, s+5, 27) \
	FMUL4S(26, a, 22) \
	FADD4S(s+6, s+6, 26) \
	FMUL4S(27, a, 23) \
	FADD4S(s+7, s+7, 27)

// WROW loads the next value row into V16-V23.
#define WROW \
	VLD1.P 64(R4), [V16.S4, V17.S4, V18.S4, V19.S4] \
	VLD1 (R4), [V20.S4, V21.S4, V22.S4, V23.S4] \
	ADD  R5, R4

// WLOAD and WSTORE move a head's 32 sums between b and V(first)….
#define WLOAD(b, s0, s1, s2, s3, s4, s5, s6, s7) \
	VLD1 (b), [s0.S4, s1.S4, s2.S4, s3.S4] \
	ADD  $64, b, R8 \
	VLD1 (R8), [s4.S4, s5.S4, s6.S4, s7.S4]

#define WSTORE(b, s0, s1, s2, s3, s4, s5, s6, s7) \
	VST1 [s0.S4, s1.S4, s2.S4, s3.S4], (b) \
	ADD  $64, b, R8 \
	VST1 [s4.S4, s5.S4, s6.S4, s7.S4], (R8)

TEXT ·weightedSumGroup32NEON(SB), NOSPLIT, $0-64
	MOVD out+0(FP), R0
	MOVD ostride+8(FP), R1
	LSL  $2, R1
	MOVD p+16(FP), R2
	MOVD pstride+24(FP), R3
	ADD  R3<<2, R2, R3
	MOVD v+40(FP), R4
	MOVD vstride+48(FP), R5
	LSL  $2, R5
	SUB  $64, R5
	MOVD n+56(FP), R6
	ADD  R1, R0, R7
	WLOAD(R0, V0, V1, V2, V3, V4, V5, V6, V7)
	MOVD heads+32(FP), R9
	CMP  $1, R9
	BEQ  heads1
	WLOAD(R7, V8, V9, V10, V11, V12, V13, V14, V15)

loop2:
	WROW
	VLD1R.P 4(R2), [V24.S4]
	VLD1R.P 4(R3), [V25.S4]
	WHEAD(24, 0)
	WHEAD(25, 8)
	SUBS $1, R6, R6
	BNE  loop2
	WSTORE(R7, V8, V9, V10, V11, V12, V13, V14, V15)
	B    store1

heads1:
	WROW
	VLD1R.P 4(R2), [V24.S4]
	WHEAD(24, 0)
	SUBS $1, R6, R6
	BNE  heads1

store1:
	WSTORE(R0, V0, V1, V2, V3, V4, V5, V6, V7)
	RET
