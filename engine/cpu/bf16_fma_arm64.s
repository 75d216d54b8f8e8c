//go:build arm64 && !purego

#include "textflag.h"
#include "neonenc_arm64.h"

// BF16-precision kernels for arm64 (AdvSIMD), the counterparts of the AVX2 + FMA
// ones in bf16_fma_amd64.s, with the same arguments, panel and part layouts and
// flags (read that file's header). Per pair each accumulator takes the odd
// element's product, then the even one's, one FMLA each: the exact bfloat16
// product added to the chain with one rounding (FPCR as Go leaves it: no
// flush-to-zero, no default NaN), which is dpStep wherever bf16FMAExact holds —
// on arm64 that also rules out infinite inputs (bf16_fma.go says why).
// USHR + SHL by 16 (or AND with 0xFFFF0000) gives the odd elements as float32,
// SHL by 16 the even ones. An activation pair (even, odd) is one 8-byte load:
// the by-element FMLA reads lane 1 for the odd product, lane 0 for the even.
//
// bf16FMAKernel6/4 take 16 rows × 6 or 4 tokens: token j's pair in V(2+j), its
// rows 0-7 in V(8+4j), V(9+4j), rows 8-15 in V(10+4j), V(11+4j); the weights of
// eight rows in V0, V1 (all 32 registers are live in Kernel6, so no mask). The
// eight-row halves alternate so that an accumulator's two FMLAs of a pair sit
// 4·tokens FMLAs apart. bf16FMAKernel2/1 take 32 rows × 2 or 1 tokens: token j's
// pair in V(2+j), its rows in V(8+8j)..V(15+8j), the weights in V24-V31, the
// mask in V4. Token j is read at R(1+j) (R13 = the token stride).
//
// The Go assembler has no vector FADD nor by-element FMLA: neonenc_arm64.h
// emits their A64 encodings.

#define ARGS \
	MOVD w+0(FP), R0 \
	MOVD x+8(FP), R1 \
	MOVD xstride+16(FP), R13 \
	MOVD k2+24(FP), R7 \
	MOVD out+32(FP), R8 \
	MOVD ostride+40(FP), R9 \
	MOVD bias+48(FP), R10 \
	MOVD part+56(FP), R11 \
	MOVD flags+64(FP), R12 \
	ADD R13, R1, R2 \
	ADD R13, R2, R3 \
	ADD R13, R3, R4 \
	ADD R13, R4, R5 \
	ADD R13, R5, R6

// XPAIR loads the pair at (r) into the low half of v and moves r to the next.
#define XPAIR(v, r) VLD1.P 8(r), [v.S2]

// ODD8 and EVEN8 widen eight rows' elements of the pair at (r) into V0, V1.
#define ODD8(r) \
	VLD1 (r), [V0.S4, V1.S4] \
	VUSHR $16, V0.S4, V0.S4 \
	VUSHR $16, V1.S4, V1.S4 \
	VSHL $16, V0.S4, V0.S4 \
	VSHL $16, V1.S4, V1.S4

#define EVEN8(r) \
	VLD1 (r), [V0.S4, V1.S4] \
	VSHL $16, V0.S4, V0.S4 \
	VSHL $16, V1.S4, V1.S4

// TOK8 adds V0, V1 times lane i of Vx to Va, Va+1.
#define TOK8(x, i, a) \
	FMLAE(a, 0, x, i) \
	FMLAE((a)+1, 1, x, i)

// TOK32 adds V24-V31 times lane i of Vx to Va..Va+7.
#define TOK32(x, i, a) \
	FMLAE(a, 24, x, i) \
	FMLAE((a)+1, 25, x, i) \
	FMLAE((a)+2, 26, x, i) \
	FMLAE((a)+3, 27, x, i) \
	FMLAE((a)+4, 28, x, i) \
	FMLAE((a)+5, 29, x, i) \
	FMLAE((a)+6, 30, x, i) \
	FMLAE((a)+7, 31, x, i)

// W32 loads the 32 rows' dwords of the pair at (R0) into V24-V31, R0 to the next
// pair; ODD32 / EVEN32 widen them in place.
#define W32 \
	VLD1.P 64(R0), [V24.S4, V25.S4, V26.S4, V27.S4] \
	VLD1.P 64(R0), [V28.S4, V29.S4, V30.S4, V31.S4]

#define ODD32 \
	VAND V4.B16, V24.B16, V24.B16 \
	VAND V4.B16, V25.B16, V25.B16 \
	VAND V4.B16, V26.B16, V26.B16 \
	VAND V4.B16, V27.B16, V27.B16 \
	VAND V4.B16, V28.B16, V28.B16 \
	VAND V4.B16, V29.B16, V29.B16 \
	VAND V4.B16, V30.B16, V30.B16 \
	VAND V4.B16, V31.B16, V31.B16

#define EVEN32 \
	VSHL $16, V24.S4, V24.S4 \
	VSHL $16, V25.S4, V25.S4 \
	VSHL $16, V26.S4, V26.S4 \
	VSHL $16, V27.S4, V27.S4 \
	VSHL $16, V28.S4, V28.S4 \
	VSHL $16, V29.S4, V29.S4 \
	VSHL $16, V30.S4, V30.S4 \
	VSHL $16, V31.S4, V31.S4

// Q4 names four consecutive registers for a load or store.
#define Q4(a, b, c, d) [a.S4, b.S4, c.S4, d.S4]

// PART16 loads (or STPART16 stores) one token's 16 rows at (R14), R14 to the
// next token's (128 bytes on); ZERO4 clears four accumulators.
#define PART16(a, b, c, d) \
	VLD1 (R14), Q4(a, b, c, d) \
	ADD $128, R14

#define STPART16(a, b, c, d) \
	VST1 Q4(a, b, c, d), (R14) \
	ADD $128, R14

#define ZERO4(a, b, c, d) \
	VEOR a.B16, a.B16, a.B16 \
	VEOR b.B16, b.B16, b.B16 \
	VEOR c.B16, c.B16, c.B16 \
	VEOR d.B16, d.B16, d.B16

// BIAS4 adds V0-V3 (bias) to Va..Va+3: y + bias, as bf16KernelGo adds.
#define BIAS4(a) \
	FADD4S(a, a, 0) \
	FADD4S((a)+1, (a)+1, 1) \
	FADD4S((a)+2, (a)+2, 2) \
	FADD4S((a)+3, (a)+3, 3)

// ACC4 loads four registers of output at (R15) into V0-V3 and sets Va..Va+3 =
// out + y, as bf16KernelGo accumulates.
#define ACC4(a) \
	VLD1 (R15), Q4(V0, V1, V2, V3) \
	FADD4S(a, 0, a) \
	FADD4S((a)+1, 1, (a)+1) \
	FADD4S((a)+2, 2, (a)+2) \
	FADD4S((a)+3, 3, (a)+3)

// OUT16 finishes one token's 16 rows (Va..Va+3, registers a-d) into (R14) and
// moves R14 to the next token's output; out + y when flags bit 3 is set.
#define OUT16(n, a, b, c, d, an) \
	MOVD R14, R15 \
	TBZ $3, R12, n \
	ACC4(an) \
n: \
	VST1 Q4(a, b, c, d), (R14) \
	ADD R9, R14

// OUT32 is OUT16 for 32 rows (Va..Va+7, registers a-h).
#define OUT32(n, a, b, c, d, e, f, g, h, an) \
	MOVD R14, R15 \
	TBZ $3, R12, n \
	ACC4(an) \
	ADD $64, R15 \
	VLD1 (R15), Q4(V0, V1, V2, V3) \
	FADD4S((an)+4, 0, (an)+4) \
	FADD4S((an)+5, 1, (an)+5) \
	FADD4S((an)+6, 2, (an)+6) \
	FADD4S((an)+7, 3, (an)+7) \
n: \
	MOVD R14, R15 \
	VST1.P Q4(a, b, c, d), 64(R15) \
	VST1 Q4(e, f, g, h), (R15) \
	ADD R9, R14

// func bf16FMAKernel6(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel6(SB), NOSPLIT, $0-72
	ARGS
	TBZ $0, R12, zero6
	MOVD R11, R14
	PART16(V8, V9, V10, V11)
	PART16(V12, V13, V14, V15)
	PART16(V16, V17, V18, V19)
	PART16(V20, V21, V22, V23)
	PART16(V24, V25, V26, V27)
	PART16(V28, V29, V30, V31)
	B loop6
zero6:
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	ZERO4(V16, V17, V18, V19)
	ZERO4(V20, V21, V22, V23)
	ZERO4(V24, V25, V26, V27)
	ZERO4(V28, V29, V30, V31)
loop6:
	XPAIR(V2, R1)
	XPAIR(V3, R2)
	XPAIR(V4, R3)
	XPAIR(V5, R4)
	XPAIR(V6, R5)
	XPAIR(V7, R6)
	ADD $32, R0, R14
	ODD8(R0)
	TOK8(2, 1, 8)
	TOK8(3, 1, 12)
	TOK8(4, 1, 16)
	TOK8(5, 1, 20)
	TOK8(6, 1, 24)
	TOK8(7, 1, 28)
	ODD8(R14)
	TOK8(2, 1, 10)
	TOK8(3, 1, 14)
	TOK8(4, 1, 18)
	TOK8(5, 1, 22)
	TOK8(6, 1, 26)
	TOK8(7, 1, 30)
	EVEN8(R0)
	TOK8(2, 0, 8)
	TOK8(3, 0, 12)
	TOK8(4, 0, 16)
	TOK8(5, 0, 20)
	TOK8(6, 0, 24)
	TOK8(7, 0, 28)
	EVEN8(R14)
	TOK8(2, 0, 10)
	TOK8(3, 0, 14)
	TOK8(4, 0, 18)
	TOK8(5, 0, 22)
	TOK8(6, 0, 26)
	TOK8(7, 0, 30)
	ADD $128, R0
	SUBS $1, R7, R7
	BNE loop6
	TBNZ $1, R12, final6
	MOVD R11, R14
	STPART16(V8, V9, V10, V11)
	STPART16(V12, V13, V14, V15)
	STPART16(V16, V17, V18, V19)
	STPART16(V20, V21, V22, V23)
	STPART16(V24, V25, V26, V27)
	STPART16(V28, V29, V30, V31)
	RET
final6:
	TBZ $2, R12, nobias6
	VLD1 (R10), Q4(V0, V1, V2, V3)
	BIAS4(8)
	BIAS4(12)
	BIAS4(16)
	BIAS4(20)
	BIAS4(24)
	BIAS4(28)
nobias6:
	MOVD R8, R14
	OUT16(out6a, V8, V9, V10, V11, 8)
	OUT16(out6b, V12, V13, V14, V15, 12)
	OUT16(out6c, V16, V17, V18, V19, 16)
	OUT16(out6d, V20, V21, V22, V23, 20)
	OUT16(out6e, V24, V25, V26, V27, 24)
	OUT16(out6f, V28, V29, V30, V31, 28)
	RET

// func bf16FMAKernel4(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel4(SB), NOSPLIT, $0-72
	ARGS
	TBZ $0, R12, zero4
	MOVD R11, R14
	PART16(V8, V9, V10, V11)
	PART16(V12, V13, V14, V15)
	PART16(V16, V17, V18, V19)
	PART16(V20, V21, V22, V23)
	B loop4
zero4:
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	ZERO4(V16, V17, V18, V19)
	ZERO4(V20, V21, V22, V23)
loop4:
	XPAIR(V2, R1)
	XPAIR(V3, R2)
	XPAIR(V4, R3)
	XPAIR(V5, R4)
	ADD $32, R0, R14
	ODD8(R0)
	TOK8(2, 1, 8)
	TOK8(3, 1, 12)
	TOK8(4, 1, 16)
	TOK8(5, 1, 20)
	ODD8(R14)
	TOK8(2, 1, 10)
	TOK8(3, 1, 14)
	TOK8(4, 1, 18)
	TOK8(5, 1, 22)
	EVEN8(R0)
	TOK8(2, 0, 8)
	TOK8(3, 0, 12)
	TOK8(4, 0, 16)
	TOK8(5, 0, 20)
	EVEN8(R14)
	TOK8(2, 0, 10)
	TOK8(3, 0, 14)
	TOK8(4, 0, 18)
	TOK8(5, 0, 22)
	ADD $128, R0
	SUBS $1, R7, R7
	BNE loop4
	TBNZ $1, R12, final4
	MOVD R11, R14
	STPART16(V8, V9, V10, V11)
	STPART16(V12, V13, V14, V15)
	STPART16(V16, V17, V18, V19)
	STPART16(V20, V21, V22, V23)
	RET
final4:
	TBZ $2, R12, nobias4
	VLD1 (R10), Q4(V0, V1, V2, V3)
	BIAS4(8)
	BIAS4(12)
	BIAS4(16)
	BIAS4(20)
nobias4:
	MOVD R8, R14
	OUT16(out4a, V8, V9, V10, V11, 8)
	OUT16(out4b, V12, V13, V14, V15, 12)
	OUT16(out4c, V16, V17, V18, V19, 16)
	OUT16(out4d, V20, V21, V22, V23, 20)
	RET

// MASK puts 0xFFFF0000 in every lane of V4.
#define MASK \
	MOVW $0xFFFF0000, R14 \
	VDUP R14, V4.S4

// func bf16FMAKernel2(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel2(SB), NOSPLIT, $0-72
	ARGS
	MASK
	TBZ $0, R12, zero2
	MOVD R11, R14
	VLD1.P 64(R14), Q4(V8, V9, V10, V11)
	VLD1.P 64(R14), Q4(V12, V13, V14, V15)
	VLD1.P 64(R14), Q4(V16, V17, V18, V19)
	VLD1 (R14), Q4(V20, V21, V22, V23)
	B loop2
zero2:
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	ZERO4(V16, V17, V18, V19)
	ZERO4(V20, V21, V22, V23)
loop2:
	XPAIR(V2, R1)
	XPAIR(V3, R2)
	MOVD R0, R14
	W32
	ODD32
	TOK32(2, 1, 8)
	TOK32(3, 1, 16)
	MOVD R14, R0
	W32
	EVEN32
	TOK32(2, 0, 8)
	TOK32(3, 0, 16)
	SUBS $1, R7, R7
	BNE loop2
	TBNZ $1, R12, final2
	MOVD R11, R14
	VST1.P Q4(V8, V9, V10, V11), 64(R14)
	VST1.P Q4(V12, V13, V14, V15), 64(R14)
	VST1.P Q4(V16, V17, V18, V19), 64(R14)
	VST1 Q4(V20, V21, V22, V23), (R14)
	RET
final2:
	TBZ $2, R12, nobias2
	VLD1.P 64(R10), Q4(V24, V25, V26, V27)
	VLD1 (R10), Q4(V28, V29, V30, V31)
	FADD4S(8, 8, 24)
	FADD4S(9, 9, 25)
	FADD4S(10, 10, 26)
	FADD4S(11, 11, 27)
	FADD4S(12, 12, 28)
	FADD4S(13, 13, 29)
	FADD4S(14, 14, 30)
	FADD4S(15, 15, 31)
	FADD4S(16, 16, 24)
	FADD4S(17, 17, 25)
	FADD4S(18, 18, 26)
	FADD4S(19, 19, 27)
	FADD4S(20, 20, 28)
	FADD4S(21, 21, 29)
	FADD4S(22, 22, 30)
	FADD4S(23, 23, 31)
nobias2:
	MOVD R8, R14
	OUT32(out2a, V8, V9, V10, V11, V12, V13, V14, V15, 8)
	OUT32(out2b, V16, V17, V18, V19, V20, V21, V22, V23, 16)
	RET

// func bf16FMAKernel1(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
TEXT ·bf16FMAKernel1(SB), NOSPLIT, $0-72
	ARGS
	MASK
	TBZ $0, R12, zero1
	MOVD R11, R14
	VLD1.P 64(R14), Q4(V8, V9, V10, V11)
	VLD1 (R14), Q4(V12, V13, V14, V15)
	B loop1
zero1:
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
loop1:
	XPAIR(V2, R1)
	MOVD R0, R14
	W32
	ODD32
	TOK32(2, 1, 8)
	MOVD R14, R0
	W32
	EVEN32
	TOK32(2, 0, 8)
	SUBS $1, R7, R7
	BNE loop1
	TBNZ $1, R12, final1
	MOVD R11, R14
	VST1.P Q4(V8, V9, V10, V11), 64(R14)
	VST1 Q4(V12, V13, V14, V15), (R14)
	RET
final1:
	TBZ $2, R12, nobias1
	VLD1.P 64(R10), Q4(V24, V25, V26, V27)
	VLD1 (R10), Q4(V28, V29, V30, V31)
	FADD4S(8, 8, 24)
	FADD4S(9, 9, 25)
	FADD4S(10, 10, 26)
	FADD4S(11, 11, 27)
	FADD4S(12, 12, 28)
	FADD4S(13, 13, 29)
	FADD4S(14, 14, 30)
	FADD4S(15, 15, 31)
nobias1:
	MOVD R8, R14
	OUT32(out1a, V8, V9, V10, V11, V12, V13, V14, V15, 8)
	RET

// ROUND sets r's lanes to roundBF16 of x's (bf16.go's rule) as float32 bits,
// the low half zero; t and m (register number mn) are scratch. V20-V27, V30
// hold the constants.
#define ROUND(x, r, t, m, mn) \
	VUSHR $16, x.S4, t.S4 \
	VAND V22.B16, t.B16, t.B16 \
	VADD V21.S4, x.S4, r.S4 \
	VADD t.S4, r.S4, r.S4 \
	VAND V20.B16, r.B16, r.B16 \
	VAND V23.B16, x.B16, m.B16 \
	CMHI4S(mn, mn, 24) \
	VORR V25.B16, x.B16, t.B16 \
	VAND V20.B16, t.B16, t.B16 \
	VBIT m.B16, t.B16, r.B16 \
	VAND V24.B16, x.B16, m.B16 \
	VCMEQ V30.S4, m.S4, m.S4 \
	VAND V26.B16, x.B16, t.B16 \
	VBIT m.B16, t.B16, r.B16

// FLOOR folds r's exponent fields into V29 (unsigned max: 255 marks a NaN or
// an infinity) and V28 (unsigned min, a zero's taken as all ones: it bounds
// nothing); t and m are scratch.
#define FLOOR(r, t, m) \
	VUSHR $23, r.S4, t.S4 \
	VAND V27.B16, t.B16, t.B16 \
	VUMAX t.S4, V29.S4, V29.S4 \
	VCMEQ V30.S4, t.S4, m.S4 \
	VORR m.B16, t.B16, t.B16 \
	VUMIN t.S4, V28.S4, V28.S4

#define DUP4S(c, v) \
	MOVW $c, R6 \
	VDUP R6, v.S4

// func roundWidenBF16NEON(dst *uint32, wide *float32, src *float32, n int) int
// For n > 0 elements, a multiple of 8: the 16-bit halves of dst (low half
// first) get roundBF16(src[i]), wide[i] the same value as a float32, and the
// result is their exponent floor (bf16ExpFloor from 255 without
// bf16FMATakesInf), bf16NoFMA if any is NaN or infinite.
TEXT ·roundWidenBF16NEON(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R0
	MOVD wide+8(FP), R1
	MOVD src+16(FP), R2
	MOVD n+24(FP), R3
	DUP4S(0xFFFF0000, V20)
	DUP4S(0x7fff, V21)
	DUP4S(1, V22)
	DUP4S(0x7fffffff, V23)
	DUP4S(0x7f800000, V24)
	DUP4S(0x00400000, V25)
	DUP4S(0x80000000, V26)
	DUP4S(0xff, V27)
	VMOV V27.B16, V28.B16 // the floor starts at 255
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
widenloop:
	VLD1.P 32(R2), [V0.S4, V1.S4]
	ROUND(V0, V2, V4, V5, 5)
	ROUND(V1, V3, V4, V5, 5)
	FLOOR(V2, V4, V5)
	FLOOR(V3, V4, V5)
	VST1.P [V2.S4, V3.S4], 32(R1)
	VUZP2 V3.H8, V2.H8, V6.H8
	VST1.P [V6.S4], 16(R0)
	SUBS $8, R3, R3
	BNE widenloop
	UMAXV4S(7, 29)
	UMINV4S(8, 28)
	VMOV V7.S[0], R4
	VMOV V8.S[0], R5
	CMP $255, R4
	BNE done
	MOVD $-1048576, R5 // bf16NoFMA
done:
	MOVD R5, ret+32(FP)
	RET
