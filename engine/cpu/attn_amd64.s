//go:build amd64 && !purego

#include "textflag.h"

// func groupScores64AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
// func groupScores128AVX512(… the same)
//
// out[g·ostride + j] = dot(q_g, k_j)·scale for query heads g < heads (q_g = q +
// g·hd, head dim hd = 64 or 128) and keys j < 16·blocks (k_j = k + j·kstride):
// bit for bit what dot (dotF32AVX2's lanes and REDUCE order) and the float32
// multiply give.
//
// dot's lane l of 32 runs acc = 0, + q[l]·k[l], + q[l+32]·k[l+32], … ; then the
// lanes are reduced (l + l+16) + (l+8 + l+24), then l + l+4, l + l+2, l + l+1.
// Here a key's 32 lanes live in two ZMM (lanes 0-15, 16-31) and step one of the
// tree (l + l+16) is a vertical add. The later steps add lanes of one register,
// which REDUCE16 does with a chain of shuffles per dot; here each step's
// shuffles take half their lanes from one key's register and half from
// another's, so one add does that step for two (then four, eight, sixteen)
// keys: 16 keys cost 15 adds and 30 shuffles instead of 16 serial chains of 8.
// Every add keeps REDUCE16's operands (the lower lanes first), so NaN payloads
// match too. The last step leaves key j in lane 4·(j mod 4) + j/4, which one
// VPERMPS puts back in order.
//
// The chains start from the first product instead of from 0 + product: they then
// differ from dot's only where dot has +0 and they have −0 (both summands −0), a
// difference every later add keeps or erases the same way, and dot's total is
// never −0 (its lanes start at +0), so adding +0 to the total restores dot's bits
// exactly. Then the scale multiply, rounded once, as attention's Go loop does.
//
// Loop order: blocks of 16 keys outside, heads inside, so each block comes from
// cache once and serves the group's heads from L1.
//
// Registers: SI q of head 0, BX the block's first key, R8 kstride and R9
// 3·kstride and R10 4·kstride in bytes, CX blocks left, DI out for head 0 and
// this block, R11 ostride in bytes, R12 this head's q, R13 this head's out, AX
// heads left, R14 the current four keys, DX zero (an index). Z0-Z3 and Z22-Z25
// q, Z4-Z11 two keys' products, Z12-Z13 two keys' halves added (step 2),
// Z14-Z15 four keys' (step 3), Z16-Z17 eight keys' (step 4), Z18-Z19 shuffled
// operands, Z20-Z21 the 16 dots, Z29 zero, Z30 scale, Z31 the final permutation.

DATA attnPerm<>+0(SB)/4, $0
DATA attnPerm<>+4(SB)/4, $4
DATA attnPerm<>+8(SB)/4, $8
DATA attnPerm<>+12(SB)/4, $12
DATA attnPerm<>+16(SB)/4, $1
DATA attnPerm<>+20(SB)/4, $5
DATA attnPerm<>+24(SB)/4, $9
DATA attnPerm<>+28(SB)/4, $13
DATA attnPerm<>+32(SB)/4, $2
DATA attnPerm<>+36(SB)/4, $6
DATA attnPerm<>+40(SB)/4, $10
DATA attnPerm<>+44(SB)/4, $14
DATA attnPerm<>+48(SB)/4, $3
DATA attnPerm<>+52(SB)/4, $7
DATA attnPerm<>+56(SB)/4, $11
DATA attnPerm<>+60(SB)/4, $15
GLOBL attnPerm<>(SB), RODATA|NOPTR, $64

// CHAIN64 starts the lane chains of q (Z0-Z3) against the key at b + i·s:
// lanes 0-15 (t0) get q[0:16]·k[0:16] + q[32:48]·k[32:48], lanes 16-31 (t1)
// q[16:32]·k[16:32] + q[48:64]·k[48:64].
#define CHAIN64(b, i, s, t0, t1, t2, t3) \
	VMULPS 0(b)(i*s), Z0, t0 \
	VMULPS 64(b)(i*s), Z1, t1 \
	VMULPS 128(b)(i*s), Z2, t2 \
	VMULPS 192(b)(i*s), Z3, t3 \
	VADDPS t2, t0, t0 \
	VADDPS t3, t1, t1

// KEY64 leaves in t0 the 16 step-one lane sums (lo + hi) of a head-dim-64 key.
#define KEY64(b, i, s, t0, t1, t2, t3) \
	CHAIN64(b, i, s, t0, t1, t2, t3) \
	VADDPS t1, t0, t0

// KEY128 is KEY64 for head dim 128 (q's second half in Z22-Z25): each lane's
// chain has four products, added in order.
#define KEY128(b, i, s, t0, t1, t2, t3) \
	CHAIN64(b, i, s, t0, t1, t2, t3) \
	VMULPS 256(b)(i*s), Z22, t2 \
	VMULPS 320(b)(i*s), Z23, t3 \
	VADDPS t2, t0, t0 \
	VADDPS t3, t1, t1 \
	VMULPS 384(b)(i*s), Z24, t2 \
	VMULPS 448(b)(i*s), Z25, t3 \
	VADDPS t2, t0, t0 \
	VADDPS t3, t1, t1 \
	VADDPS t1, t0, t0

#define QLOAD64 \
	VMOVUPS 0(R12), Z0 \
	VMOVUPS 64(R12), Z1 \
	VMOVUPS 128(R12), Z2 \
	VMOVUPS 192(R12), Z3

#define QLOAD128 \
	QLOAD64 \
	VMOVUPS 256(R12), Z22 \
	VMOVUPS 320(R12), Z23 \
	VMOVUPS 384(R12), Z24 \
	VMOVUPS 448(R12), Z25

// STEP2 sets v to keys a and b's lanes l + l+8: a's in lanes 0-7, b's in 8-15.
#define STEP2(a, b, v) \
	VSHUFF32X4 $0x44, b, a, Z18 \
	VSHUFF32X4 $0xee, b, a, Z19 \
	VADDPS Z19, Z18, v

// STEP3 adds lanes l and l+4 of each key in v (keys a, b) and u (keys c, d):
// 128-bit block i of w holds key i's four sums.
#define STEP3(v, u, w) \
	VSHUFF32X4 $0x88, u, v, Z18 \
	VSHUFF32X4 $0xdd, u, v, Z19 \
	VADDPS Z19, Z18, w

// STEP4 adds lanes l and l+2 within every 128-bit block of two step-3 results:
// block i holds two sums of w1's key i, then two of w2's.
#define STEP4(w1, w2, u) \
	VUNPCKLPD w2, w1, Z18 \
	VUNPCKHPD w2, w1, Z19 \
	VADDPS Z19, Z18, u

// STEP5 adds the two lanes of every pair: block i holds keys i, i+4, i+8, i+12.
#define STEP5(u1, u2, r) \
	VSHUFPS $0x88, u2, u1, Z18 \
	VSHUFPS $0xdd, u2, u1, Z19 \
	VADDPS Z19, Z18, r

// QUAD reduces the four keys at R14, R14+kstride, … to the step-3 result w,
// with KEY64 or KEY128.
#define QUAD(KEY, w) \
	KEY(R14, DX, 1, Z4, Z5, Z6, Z7) \
	KEY(R14, R8, 1, Z8, Z9, Z10, Z11) \
	STEP2(Z4, Z8, Z12) \
	KEY(R14, R8, 2, Z4, Z5, Z6, Z7) \
	KEY(R14, R9, 1, Z8, Z9, Z10, Z11) \
	STEP2(Z4, Z8, Z13) \
	STEP3(Z12, Z13, w)

// SCORES is the body of both kernels: QLOAD loads a head's query, KEY scores a
// key, qbytes is the head's size in bytes.
#define SCORES(QLOAD, KEY, qbytes) \
	MOVQ q+0(FP), SI \
	MOVQ k+16(FP), BX \
	MOVQ kstride+24(FP), R8 \
	SHLQ $2, R8 \
	LEAQ (R8)(R8*2), R9 \
	MOVQ R8, R10 \
	SHLQ $2, R10 \
	MOVQ blocks+32(FP), CX \
	VBROADCASTSS scale+40(FP), Z30 \
	MOVQ out+48(FP), DI \
	MOVQ ostride+56(FP), R11 \
	SHLQ $2, R11 \
	XORQ DX, DX \
	VPXORD Z29, Z29, Z29 \
	VMOVUPS attnPerm<>(SB), Z31 \
block: \
	MOVQ SI, R12 \
	MOVQ DI, R13 \
	MOVQ heads+8(FP), AX \
head: \
	QLOAD \
	MOVQ BX, R14 \
	QUAD(KEY, Z14) \
	ADDQ R10, R14 \
	QUAD(KEY, Z15) \
	ADDQ R10, R14 \
	STEP4(Z14, Z15, Z16) \
	QUAD(KEY, Z14) \
	ADDQ R10, R14 \
	QUAD(KEY, Z15) \
	STEP4(Z14, Z15, Z17) \
	STEP5(Z16, Z17, Z20) \
	VADDPS Z29, Z20, Z20 \
	VMULPS Z30, Z20, Z20 \
	VPERMPS Z20, Z31, Z21 \
	VMOVUPS Z21, 0(R13) \
	ADDQ $qbytes, R12 \
	ADDQ R11, R13 \
	DECQ AX \
	JNZ  head \
	LEAQ (BX)(R10*4), BX \
	ADDQ $64, DI \
	DECQ CX \
	JNZ  block \
	VZEROUPPER \
	RET

TEXT ·groupScores64AVX512(SB), NOSPLIT, $0-64
	SCORES(QLOAD64, KEY64, 256)

TEXT ·groupScores128AVX512(SB), NOSPLIT, $0-64
	SCORES(QLOAD128, KEY128, 512)

// func weightedSumGroup64AVX512(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int)
//
// For heads g < heads (1 to 4) and elements i < 64: out[g·ostride + i] +=
// p_g[j]·v[j·vstride + i] for j = 0 … n−1 in order (p_g = p + g·pstride, n > 0),
// each a rounded product then an add (VMULPS, VADDPS): axpy's chain, continuing
// from out (zeroed by the caller, that is weightedSum's chain). All heads' 64
// sums stay in registers through the positions (head g in Z(4g)-Z(4g+3)), so a
// value row is loaded once, into Z16-Z19, for every head of the group.
// Registers: DI out, BX zero, R9 ostride and R13 3·ostride in bytes, SI R10 R11 R12 the
// heads' p, AX the first value row and R14 this one, R8 vstride in bytes, DX n,
// CX the position;
// Z20-Z23 the heads' weights, Z24-Z27 products.

// WHEAD adds head h's weight (pz, from preg) times the value row to a0-a3.
#define WHEAD(preg, pz, a0, a1, a2, a3) \
	VBROADCASTSS (preg)(CX*4), pz \
	VMULPS Z16, pz, Z24 \
	VMULPS Z17, pz, Z25 \
	VMULPS Z18, pz, Z26 \
	VMULPS Z19, pz, Z27 \
	VADDPS Z24, a0, a0 \
	VADDPS Z25, a1, a1 \
	VADDPS Z26, a2, a2 \
	VADDPS Z27, a3, a3

#define WHEAD0 WHEAD(SI, Z20, Z0, Z1, Z2, Z3)
#define WHEAD1 WHEAD(R10, Z21, Z4, Z5, Z6, Z7)
#define WHEAD2 WHEAD(R11, Z22, Z8, Z9, Z10, Z11)
#define WHEAD3 WHEAD(R12, Z23, Z12, Z13, Z14, Z15)

// WLOAD and WSTORE move a head's 64 sums between out (b + i·s) and registers.
#define WLOAD(b, i, s, a0, a1, a2, a3) \
	VMOVUPS 0(b)(i*s), a0 \
	VMOVUPS 64(b)(i*s), a1 \
	VMOVUPS 128(b)(i*s), a2 \
	VMOVUPS 192(b)(i*s), a3

#define WSTORE(b, i, s, a0, a1, a2, a3) \
	VMOVUPS a0, 0(b)(i*s) \
	VMOVUPS a1, 64(b)(i*s) \
	VMOVUPS a2, 128(b)(i*s) \
	VMOVUPS a3, 192(b)(i*s)

// WLOOP runs the positions with HEADS adding each head's products.
#define WLOOP(label, HEADS) \
	MOVQ AX, R14 \
	XORQ CX, CX \
label: \
	VMOVUPS 0(R14), Z16 \
	VMOVUPS 64(R14), Z17 \
	VMOVUPS 128(R14), Z18 \
	VMOVUPS 192(R14), Z19 \
	HEADS \
	ADDQ R8, R14 \
	INCQ CX \
	CMPQ CX, DX \
	JLT  label

TEXT ·weightedSumGroup64AVX512(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ ostride+8(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R13
	MOVQ p+16(FP), SI
	MOVQ pstride+24(FP), AX
	SHLQ $2, AX
	LEAQ (SI)(AX*1), R10
	LEAQ (R10)(AX*1), R11
	LEAQ (R11)(AX*1), R12
	MOVQ vstride+48(FP), R8
	SHLQ $2, R8
	MOVQ n+56(FP), DX
	MOVQ v+40(FP), AX
	XORQ BX, BX
	WLOAD(DI, BX, 1, Z0, Z1, Z2, Z3)
	CMPQ heads+32(FP), $1
	JEQ  heads1
	WLOAD(DI, R9, 1, Z4, Z5, Z6, Z7)
	CMPQ heads+32(FP), $2
	JEQ  heads2
	WLOAD(DI, R9, 2, Z8, Z9, Z10, Z11)
	CMPQ heads+32(FP), $3
	JEQ  heads3
	WLOAD(DI, R13, 1, Z12, Z13, Z14, Z15)
	WLOOP(loop4, WHEAD0 WHEAD1 WHEAD2 WHEAD3)
	WSTORE(DI, R13, 1, Z12, Z13, Z14, Z15)
	JMP  store3

heads3:
	WLOOP(loop3, WHEAD0 WHEAD1 WHEAD2)
store3:
	WSTORE(DI, R9, 2, Z8, Z9, Z10, Z11)
	JMP  store2

heads2:
	WLOOP(loop2, WHEAD0 WHEAD1)
store2:
	WSTORE(DI, R9, 1, Z4, Z5, Z6, Z7)
	JMP  store1

heads1:
	WLOOP(loop1, WHEAD0)
store1:
	WSTORE(DI, BX, 1, Z0, Z1, Z2, Z3)
	VZEROUPPER
	RET
