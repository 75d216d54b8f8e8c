//go:build amd64 && !purego

#include "textflag.h"

// expShiftedAVX2 evaluates Go's math.Exp four lanes at a time, repeating, lane by
// lane, the exact instruction sequence of the FMA path of $GOROOT/src/math/exp_amd64.s
// (archExp), with the same constants and the same rounding steps: the same bits.
// It handles only arguments in [-708, 708], where archExp takes neither its
// overflow nor its denormal branch, and returns at the first block of four that
// holds anything else (NaN, ±Inf, large values) so the caller runs math.Exp there.

#define C(off, v) DATA expconst<>+off(SB)/8, $v; DATA expconst<>+(off+8)(SB)/8, $v; DATA expconst<>+(off+16)(SB)/8, $v; DATA expconst<>+(off+24)(SB)/8, $v

C(0, 1.4426950408889634073599246810018920)    // LOG2E
C(32, 0.69314718055966295651160180568695068359375)   // LN2U
C(64, 0.28235290563031577122588448175013436025525412068e-12) // LN2L
C(96, 0.0625)
C(128, 2.4801587301587301587e-5)
C(160, 1.9841269841269841270e-4)
C(192, 1.3888888888888888889e-3)
C(224, 8.3333333333333333333e-3)
C(256, 4.1666666666666666667e-2)
C(288, 1.6666666666666666667e-1)
C(320, 0.5)
C(352, 1.0)
C(384, 2.0)
C(416, -708.0)
C(448, 708.0)
DATA expconst<>+480(SB)/8, $1023
DATA expconst<>+488(SB)/8, $1023
DATA expconst<>+496(SB)/8, $1023
DATA expconst<>+504(SB)/8, $1023
GLOBL expconst<>(SB), RODATA, $512

// func expShiftedAVX2(dst *float64, src *float32, shift float64, n int) int
// dst[i] = math.Exp(float64(src[i]) - shift) for i < the returned count; n is a
// multiple of 4.
TEXT ·expShiftedAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	VBROADCASTSD shift+16(FP), Y15
	MOVQ n+24(FP), CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VCVTPS2PD (SI)(AX*4), Y0 // exact
	VSUBPD    Y15, Y0, Y0    // x = float64(src) − shift, one rounding as in Go

	// every lane in [-708, 708] (ordered: NaN fails), else leave this block to math.Exp
	VCMPPD    $0x1D, expconst<>+416(SB), Y0, Y1 // x >= −708
	VCMPPD    $0x12, expconst<>+448(SB), Y0, Y2 // x <= 708
	VANDPD    Y1, Y2, Y1
	VMOVMSKPD Y1, BX
	CMPQ      BX, $15
	JNE       done

	VMULPD    expconst<>+0(SB), Y0, Y1 // MULSD X0, X1 (LOG2E·x)
	VCVTPD2DQY Y1, X3                  // CVTSD2SL: k = round-to-nearest-even
	VCVTDQ2PD X3, Y1                   // CVTSL2SD
	VFNMADD231PD expconst<>+32(SB), Y1, Y0 // x −= k·LN2U, fused
	VFNMADD231PD expconst<>+64(SB), Y1, Y0 // x −= k·LN2L, fused
	VMULPD    expconst<>+96(SB), Y0, Y0    // x·0.0625
	VMOVUPD   expconst<>+128(SB), Y1
	VFMADD213PD expconst<>+160(SB), Y0, Y1
	VFMADD213PD expconst<>+192(SB), Y0, Y1
	VFMADD213PD expconst<>+224(SB), Y0, Y1
	VFMADD213PD expconst<>+256(SB), Y0, Y1
	VFMADD213PD expconst<>+288(SB), Y0, Y1
	VFMADD213PD expconst<>+320(SB), Y0, Y1
	VFMADD213PD expconst<>+352(SB), Y0, Y1
	VMULPD    Y1, Y0, Y0
	VADDPD    expconst<>+384(SB), Y0, Y1
	VMULPD    Y1, Y0, Y0
	VADDPD    expconst<>+384(SB), Y0, Y1
	VMULPD    Y1, Y0, Y0
	VADDPD    expconst<>+384(SB), Y0, Y1
	VMULPD    Y1, Y0, Y0
	VADDPD    expconst<>+384(SB), Y0, Y1
	VFMADD213PD expconst<>+352(SB), Y1, Y0

	// ·2^k: (k + 1023) << 52 as a float64, exact for the range checked above
	VPMOVSXDQ X3, Y2
	VPADDQ    expconst<>+480(SB), Y2, Y2
	VPSLLQ    $52, Y2, Y2
	VMULPD    Y2, Y0, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET
