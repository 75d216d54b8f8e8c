//go:build arm64 && !purego

#include "textflag.h"
#include "neonenc_arm64.h"

// softmax_amd64.s's passes on arm64, each the same operations on the same
// values as the Go loops of softmax (attention.go). The instructions Go's
// assembler lacks come from neonenc_arm64.h.

// func maxNEON(s *float32, n int) (m float32, ordered bool)
//
// maxAVX2 on NEON: m is the largest of s[0:n] (n > 0, a multiple of 4) by FMAX,
// which returns NaN where either operand is NaN, so ordered (no NaN) is m == m;
// otherwise the caller takes Go's max. Only a zero maximum's sign can differ
// from Go's max, and expf(±0) is 1 either way.
TEXT ·maxNEON(SB), NOSPLIT, $0-21
	MOVD  s+0(FP), R0
	MOVD  n+8(FP), R1
	VLD1.P 16(R0), [V0.S4]
	SUBS  $4, R1, R1
	BEQ   maxreduce
maxloop:
	VLD1.P 16(R0), [V1.S4]
	FMAX4S(0, 0, 1)
	SUBS  $4, R1, R1
	BNE   maxloop
maxreduce:
	FMAXV4S(0, 0)
	FMOVS F0, m+16(FP)
	FCMPS F0, F0
	CSET  EQ, R2
	MOVB  R2, ordered+20(FP)
	RET

// func sumsF64(s0, s1, s2, s3 *float32, n int, z *[4]float64)
//
// z[r] = Σ_j float64(s_r[j]) for j < n (> 0) in increasing j, Go's float64
// sum: four rows' serial chains interleaved, as on amd64.
TEXT ·sumsF64(SB), NOSPLIT, $0-48
	MOVD s0+0(FP), R0
	MOVD s1+8(FP), R1
	MOVD s2+16(FP), R2
	MOVD s3+24(FP), R3
	MOVD n+32(FP), R4
	MOVD z+40(FP), R5
	FMOVD ZR, F0
	FMOVD ZR, F1
	FMOVD ZR, F2
	FMOVD ZR, F3
sumloop:
	FMOVS.P 4(R0), F4
	FMOVS.P 4(R1), F5
	FMOVS.P 4(R2), F6
	FMOVS.P 4(R3), F7
	FCVTSD F4, F4
	FCVTSD F5, F5
	FCVTSD F6, F6
	FCVTSD F7, F7
	FADDD F4, F0, F0
	FADDD F5, F1, F1
	FADDD F6, F2, F2
	FADDD F7, F3, F3
	SUBS $1, R4, R4
	BNE  sumloop
	FMOVD F0, 0(R5)
	FMOVD F1, 8(R5)
	FMOVD F2, 16(R5)
	FMOVD F3, 24(R5)
	RET

// func scaleF64NEON(s *float32, inv float64, n int)
//
// s[j] = float32(float64(s[j])·inv) for j < n (> 0, a multiple of 4): widen,
// multiply in float64, round to float32, as the Go loop does.
TEXT ·scaleF64NEON(SB), NOSPLIT, $0-24
	MOVD  s+0(FP), R0
	FMOVD inv+8(FP), F16
	VDUP  V16.D[0], V16.D2
	MOVD  n+16(FP), R1
scaleloop:
	VLD1  (R0), [V0.S4]
	FCVTL2D(1, 0)
	FCVTL22D(2, 0)
	FMUL2D(1, 1, 16)
	FMUL2D(2, 2, 16)
	FCVTN2S(3, 1)
	FCVTN22S(3, 2)
	VST1.P [V3.S4], 16(R0)
	SUBS  $4, R1, R1
	BNE   scaleloop
	RET
