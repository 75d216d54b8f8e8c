//go:build amd64 && !purego

#include "textflag.h"

// The softmax kernels below each do one pass of softmax (attention.go) in AVX2,
// the same operations on the same values as the Go loops.

// func maxAVX2(s *float32, n int) (m float32, ordered bool)
//
// m is the largest of s[0:n] (n > 0, a multiple of 8) by VMAXPS, and ordered
// reports that none is NaN (VMAXPS would drop a NaN: the caller then takes Go's
// max). Only a zero maximum's sign can differ from Go's max, which prefers +0;
// the softmax subtracts m, and expf(±0) is 1 either way.
TEXT ·maxAVX2(SB), NOSPLIT, $0-21
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	VMOVUPS (SI), Y0
	VCMPPS $3, Y0, Y0, Y1
	ADDQ $32, SI
	SUBQ $8, CX
	JZ   maxreduce
maxloop:
	VMOVUPS (SI), Y2
	VMAXPS Y2, Y0, Y0
	VCMPPS $3, Y2, Y2, Y3
	VORPS Y3, Y1, Y1
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  maxloop
maxreduce:
	VEXTRACTF128 $1, Y0, X2
	VMAXPS X2, X0, X0
	VMOVHLPS X0, X0, X2
	VMAXPS X2, X0, X0
	VMOVSHDUP X0, X2
	VMAXSS X2, X0, X0
	MOVSS X0, m+16(FP)
	VMOVMSKPS Y1, AX
	TESTL AX, AX
	SETEQ ordered+20(FP)
	VZEROUPPER
	RET

// func sumsF64(s0, s1, s2, s3 *float32, n int, z *[4]float64)
//
// z[r] = Σ_j float64(s_r[j]) for j < n (> 0) in increasing j, Go's float64 sum:
// each row's adds are one serial chain (3-cycle latency), so four rows' chains
// interleaved run in about the time of one. X15 stays zero as the conversions'
// merge source, so no conversion waits on an earlier one.
TEXT ·sumsF64(SB), NOSPLIT, $0-48
	MOVQ s0+0(FP), SI
	MOVQ s1+8(FP), DI
	MOVQ s2+16(FP), R8
	MOVQ s3+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ z+40(FP), DX
	VXORPD X15, X15, X15
	VXORPD X0, X0, X0
	VXORPD X1, X1, X1
	VXORPD X2, X2, X2
	VXORPD X3, X3, X3
	XORQ AX, AX
sumloop:
	VCVTSS2SD (SI)(AX*4), X15, X4
	VCVTSS2SD (DI)(AX*4), X15, X5
	VCVTSS2SD (R8)(AX*4), X15, X6
	VCVTSS2SD (R9)(AX*4), X15, X7
	VADDSD X4, X0, X0
	VADDSD X5, X1, X1
	VADDSD X6, X2, X2
	VADDSD X7, X3, X3
	INCQ AX
	CMPQ AX, CX
	JLT  sumloop
	VMOVSD X0, 0(DX)
	VMOVSD X1, 8(DX)
	VMOVSD X2, 16(DX)
	VMOVSD X3, 24(DX)
	RET

// func scaleF64AVX2(s *float32, inv float64, n int)
//
// s[j] = float32(float64(s[j])·inv) for j < n (> 0, a multiple of 8): widen,
// multiply in float64, round to float32, four at a time, as the Go loop does.
TEXT ·scaleF64AVX2(SB), NOSPLIT, $0-24
	MOVQ s+0(FP), SI
	VBROADCASTSD inv+8(FP), Y0
	MOVQ n+16(FP), CX
scaleloop:
	VCVTPS2PD 0(SI), Y1
	VCVTPS2PD 16(SI), Y2
	VMULPD Y0, Y1, Y1
	VMULPD Y0, Y2, Y2
	VCVTPD2PSY Y1, X1
	VCVTPD2PSY Y2, X2
	VMOVUPS X1, 0(SI)
	VMOVUPS X2, 16(SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  scaleloop
	VZEROUPPER
	RET
