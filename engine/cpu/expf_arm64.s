//go:build arm64 && !purego

#include "textflag.h"
#include "neonenc_arm64.h"

// expf_amd64.s's kernels on NEON: four lanes, each doing exactly expf's float32
// operations in its order (FMUL then FADD or FSUB, never FMLA; floor by FRINTM,
// which equals Go's truncate-then-adjust on this range; the scale 2^n built from
// its bits), so a lane's bits equal expf's. Like the AVX2 kernels they take only
// x in [-86, 88], where expf needs neither clamping nor a two-step scale: they
// stop before the first block of four holding anything else (NaN included) and
// return how many elements they did; Go does the rest. The instructions Go's
// assembler lacks come from neonenc_arm64.h.

// EXPF_CONSTS: V16 log2e, V17 0.5 (also the last coefficient,
// 5.0000001201e-1 in float32), V18 1, V19 ln2Hi, V20 ln2Lo, V21-V25 the
// coefficients 1.9875691500e-4 … 1.6666665459e-1, V26 -86, V27 88, V28 the
// exponent bias 127 (an integer).
#define EXPF_CONSTS \
	MOVW $0x3fb8aa3b, R9 \
	VDUP R9, V16.S4 \
	MOVW $0x3f000000, R9 \
	VDUP R9, V17.S4 \
	MOVW $0x3f800000, R9 \
	VDUP R9, V18.S4 \
	MOVW $0x3f318000, R9 \
	VDUP R9, V19.S4 \
	MOVW $0xb95e8083, R9 \
	VDUP R9, V20.S4 \
	MOVW $0x39506967, R9 \
	VDUP R9, V21.S4 \
	MOVW $0x3ab743ce, R9 \
	VDUP R9, V22.S4 \
	MOVW $0x3c088908, R9 \
	VDUP R9, V23.S4 \
	MOVW $0x3d2aa9c1, R9 \
	VDUP R9, V24.S4 \
	MOVW $0x3e2aaaaa, R9 \
	VDUP R9, V25.S4 \
	MOVW $0xc2ac0000, R9 \
	VDUP R9, V26.S4 \
	MOVW $0x42b00000, R9 \
	VDUP R9, V27.S4 \
	MOVW $127, R9 \
	VDUP R9, V28.S4

// EXPF_INRANGE jumps to label unless every lane of V1 is in [-86, 88].
#define EXPF_INRANGE(label) \
	FCMGE4S(2, 1, 26) \
	FCMGE4S(3, 27, 1) \
	VAND V3.B16, V2.B16, V2.B16 \
	VMOV V2.D[0], R10 \
	VMOV V2.D[1], R11 \
	AND  R11, R10, R10 \
	CMN  $1, R10 \
	BNE  label

// EXPF sets V1 = expf(V1), clobbering V2-V4.
#define EXPF \
	FMUL4S(2, 1, 16) \
	FADD4S(2, 2, 17) \
	FRINTM4S(2, 2) \
	FMUL4S(3, 2, 19) \
	FSUB4S(1, 1, 3) \
	FMUL4S(3, 2, 20) \
	FSUB4S(1, 1, 3) \
	FMUL4S(3, 21, 1) \
	FADD4S(3, 3, 22) \
	FMUL4S(3, 3, 1) \
	FADD4S(3, 3, 23) \
	FMUL4S(3, 3, 1) \
	FADD4S(3, 3, 24) \
	FMUL4S(3, 3, 1) \
	FADD4S(3, 3, 25) \
	FMUL4S(3, 3, 1) \
	FADD4S(3, 3, 17) \
	FMUL4S(4, 1, 1) \
	FMUL4S(3, 3, 4) \
	FADD4S(3, 3, 1) \
	FADD4S(3, 3, 18) \
	FCVTZS4S(2, 2) \
	VADD V28.S4, V2.S4, V2.S4 \
	VSHL $23, V2.S4, V2.S4 \
	FMUL4S(1, 3, 2)

// func swigluNEON(gate *float32, up *float32, n int) int
// gate[i] = gate[i] / (1 + expf(-gate[i])) · up[i], four at a time.
TEXT ·swigluNEON(SB), NOSPLIT, $0-32
	MOVD gate+0(FP), R0
	MOVD up+8(FP), R1
	MOVD n+16(FP), R2
	MOVD $0, R3
	EXPF_CONSTS
swigluloop:
	CMP  R2, R3
	BGE  swigludone
	FMOVQ (R0), F0
	FNEG4S(1, 0)
	EXPF_INRANGE(swigludone)
	EXPF
	FADD4S(1, 1, 18)
	FDIV4S(0, 0, 1)
	FMOVQ (R1), F5
	FMUL4S(0, 0, 5)
	FMOVQ.P F0, 16(R0)
	ADD  $16, R1
	ADD  $4, R3
	B    swigluloop
swigludone:
	MOVD R3, ret+24(FP)
	RET

// func expSubNEON(s *float32, m float32, n int) int
// s[i] = expf(s[i] − m), four at a time.
TEXT ·expSubNEON(SB), NOSPLIT, $0-32
	MOVD  s+0(FP), R0
	FMOVS m+8(FP), F5
	VDUP  V5.S[0], V5.S4
	MOVD  n+16(FP), R2
	MOVD  $0, R3
	EXPF_CONSTS
expsubloop:
	CMP  R2, R3
	BGE  expsubdone
	FMOVQ (R0), F1
	FSUB4S(1, 1, 5)
	EXPF_INRANGE(expsubdone)
	EXPF
	FMOVQ.P F1, 16(R0)
	ADD  $4, R3
	B    expsubloop
expsubdone:
	MOVD R3, ret+24(FP)
	RET
