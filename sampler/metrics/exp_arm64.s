//go:build arm64 && !purego

#include "textflag.h"

// expShiftedNEON evaluates Go's math.Exp two lanes at a time, four per step,
// repeating lane by lane the instruction sequence of $GOROOT/src/math/exp_arm64.s
// (archExp, which math.Exp always runs on arm64) with the same constants and the
// same roundings: its FMADD/FNMSUB/FMSUB become FMLA/FMLS on an accumulator
// holding the addend (one rounding either way), FCSEL a bit select, and its
// Ldexp, in a range that never takes its denormal branch and multiplies by 1,
// an integer add of k<<52 to y's bits. Like expShiftedAVX2 it takes only
// arguments in [-708, 708] and returns at the first block of four holding
// anything else, for math.Exp to do; archExp's |x| < 2^-28 branch (1 + x) is a
// per-lane select. The Go assembler lacks most of these vector forms: the
// macros emit their encodings (register numbers).

#define FADD2D(d, n, m) WORD $(0x4E60D400 | ((m)<<16) | ((n)<<5) | (d))
#define FSUB2D(d, n, m) WORD $(0x4EE0D400 | ((m)<<16) | ((n)<<5) | (d))
#define FMUL2D(d, n, m) WORD $(0x6E60DC00 | ((m)<<16) | ((n)<<5) | (d))
#define FDIV2D(d, n, m) WORD $(0x6E60FC00 | ((m)<<16) | ((n)<<5) | (d))
// FMLA2D: Vd += Vn·Vm, FMLS2D: Vd −= Vn·Vm, each rounded once.
#define FMLA2D(d, n, m) WORD $(0x4E60CC00 | ((m)<<16) | ((n)<<5) | (d))
#define FMLS2D(d, n, m) WORD $(0x4EE0CC00 | ((m)<<16) | ((n)<<5) | (d))
// FCMGE2D: lanes of all ones where Vn ≥ Vm (false for NaN); FCMGT2D: Vn > Vm.
#define FCMGE2D(d, n, m) WORD $(0x6E60E400 | ((m)<<16) | ((n)<<5) | (d))
#define FCMGT2D(d, n, m) WORD $(0x6EE0E400 | ((m)<<16) | ((n)<<5) | (d))
// FCMLTZ2D: lanes of all ones where Vn < 0.
#define FCMLTZ2D(d, n) WORD $(0x4EE0E800 | ((n)<<5) | (d))
#define FABS2D(d, n) WORD $(0x4EE0F800 | ((n)<<5) | (d))
#define FCVTZS2D(d, n) WORD $(0x4EE1B800 | ((n)<<5) | (d))
#define SCVTF2D(d, n) WORD $(0x4E61D800 | ((n)<<5) | (d))
// FCVTL2D widens Vn's lower two float32 to float64 (exact); FCVTL22D the upper two.
#define FCVTL2D(d, n) WORD $(0x0E617800 | ((n)<<5) | (d))
#define FCVTL22D(d, n) WORD $(0x4E617800 | ((n)<<5) | (d))

// DUPD sets both lanes of V(d) (named vd) to the float64 with bits v.
#define DUPD(v, vd) \
	MOVD $v, R9 \
	VDUP R9, vd.D2

// Constants: V16 Log2e, V17 0.5, V18 −0.5, V19 Ln2Hi, V20 Ln2Lo, V21 P5, V22 P4,
// V23 P3, V24 P2, V25 P1, V26 1, V27 2, V28 −708, V29 708, V30 2^-28, V31 shift.

// EXP sets V(x) (named vx) = math.Exp(V(x)) for two lanes, with V0-V7 as
// scratch (x ≥ 8).
#define EXP(x, vx) \
	VMOV V17.B16, V0.B16 \
	FMLA2D(0, 16, x) \
	VMOV V18.B16, V1.B16 \
	FMLA2D(1, 16, x) \
	FCMLTZ2D(2, x) \
	VBIT V2.B16, V1.B16, V0.B16 \
	FCVTZS2D(3, 0) \
	SCVTF2D(0, 3) \
	VMOV vx.B16, V1.B16 \
	FMLS2D(1, 19, 0) \
	FMUL2D(2, 20, 0) \
	FSUB2D(4, 1, 2) \
	FMUL2D(5, 4, 4) \
	VMOV V22.B16, V6.B16 \
	FMLA2D(6, 21, 5) \
	VMOV V23.B16, V7.B16 \
	FMLA2D(7, 6, 5) \
	VMOV V24.B16, V6.B16 \
	FMLA2D(6, 7, 5) \
	VMOV V25.B16, V7.B16 \
	FMLA2D(7, 6, 5) \
	VMOV V4.B16, V6.B16 \
	FMLS2D(6, 7, 5) \
	FSUB2D(7, 27, 6) \
	FMUL2D(5, 4, 6) \
	FDIV2D(5, 5, 7) \
	FSUB2D(5, 2, 5) \
	FSUB2D(5, 5, 1) \
	FSUB2D(5, 26, 5) \
	VSHL $52, V3.D2, V3.D2 \
	VADD V3.D2, V5.D2, V5.D2 \
	FABS2D(6, x) \
	FCMGT2D(6, 30, 6) \
	FADD2D(7, x, 26) \
	VBIT V6.B16, V7.B16, V5.B16 \
	VMOV V5.B16, vx.B16

TEXT ·expShiftedNEON(SB), NOSPLIT, $0-40
	DUPD(0x3FF71547652B82FE, V16)
	DUPD(0x3FE0000000000000, V17)
	DUPD(0xBFE0000000000000, V18)
	DUPD(0x3FE62E42FEE00000, V19)
	DUPD(0x3DEA39EF35793C76, V20)
	DUPD(0x3E66376972BEA4D0, V21)
	DUPD(0xBEBBBD41C5D26BF1, V22)
	DUPD(0x3F11566AAF25DE2C, V23)
	DUPD(0xBF66C16C16BEBD93, V24)
	DUPD(0x3FC5555555555555, V25)
	DUPD(0x3FF0000000000000, V26)
	DUPD(0x4000000000000000, V27)
	DUPD(0xC086200000000000, V28)
	DUPD(0x4086200000000000, V29)
	DUPD(0x3E30000000000000, V30)
	FMOVD shift+16(FP), F31
	VDUP  V31.D[0], V31.D2
	MOVD  dst+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  n+24(FP), R2
	MOVD  $0, R3

loop:
	CMP  R2, R3
	BGE  done
	FMOVQ (R1), F10
	FCVTL2D(8, 10)
	FCVTL22D(9, 10)
	FSUB2D(8, 8, 31)
	FSUB2D(9, 9, 31)
	// every lane in [-708, 708] (NaN fails), else leave this block to math.Exp
	FCMGE2D(0, 8, 28)
	FCMGE2D(1, 29, 8)
	VAND V1.B16, V0.B16, V0.B16
	FCMGE2D(1, 9, 28)
	VAND V1.B16, V0.B16, V0.B16
	FCMGE2D(1, 29, 9)
	VAND V1.B16, V0.B16, V0.B16
	VMOV V0.D[0], R10
	VMOV V0.D[1], R11
	AND  R11, R10, R10
	CMN  $1, R10
	BNE  done
	EXP(8, V8)
	EXP(9, V9)
	VST1.P [V8.D2, V9.D2], 32(R0)
	ADD  $16, R1
	ADD  $4, R3
	B    loop

done:
	MOVD R3, ret+32(FP)
	RET
