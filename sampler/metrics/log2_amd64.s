//go:build amd64 && !purego

#include "textflag.h"

// normalizeLog2AVX2 evaluates q = p/z and Go's math.Log2(math.Max(q, clip)) four
// lanes at a time with the same bits. math.Log2 (log10.go) is Frexp, then
// Log(frac)*(1/Ln2) + float64(exp), or float64(exp-1) when frac is exactly 0.5;
// the compiler keeps that multiply and add separate (a MULSD from the stack and an
// ADDSD, GOAMD64=v3 included). math.Log on amd64 is the assembly archLog
// ($GOROOT/src/math/log_amd64.s), which uses no FMA: the kernel repeats its
// instruction sequence lane by lane with the same constants. Its own frexp of frac
// (already in [0.5, 1)) gives back frac and k = +0, which the kernel starts from.
// It takes only blocks whose quotients are all ordered and below +Inf (so that, with
// a normal finite clip, every max is normal and finite) and returns at the first
// other block for the caller to run math.Log2 there.

#define C(off, v) DATA log2const<>+off(SB)/8, $v; DATA log2const<>+(off+8)(SB)/8, $v; DATA log2const<>+(off+16)(SB)/8, $v; DATA log2const<>+(off+24)(SB)/8, $v

C(0, 0x7FF0000000000000)    // +Inf
C(32, 0x000FFFFFFFFFFFFF)   // mantissa
C(64, 0x4330000000000000)   // 2^52: an exponent field ORed in reads as 2^52 + field
C(96, 0x43300000000003FE)   // 2^52 + 1022: Frexp's exp = field − 1022
C(128, 0.5)
C(160, 1.0)
C(192, 2.0)
C(224, 7.07106781186547524401e-01) // HSqrt2
C(256, 1.479819860511658591e-01)   // L7
C(288, 1.818357216161805012e-01)   // L5
C(320, 2.857142874366239149e-01)   // L3
C(352, 6.666666666666735130e-01)   // L1
C(384, 1.531383769920937332e-01)   // L6
C(416, 2.222219843214978396e-01)   // L4
C(448, 3.999999999940941908e-01)   // L2
C(480, 1.90821492927058770002e-10) // Ln2Lo
C(512, 6.93147180369123816490e-01) // Ln2Hi
C(544, 0x3FF71547652B82FE)         // 1/Ln2 as Go rounds the constant expression
GLOBL log2const<>(SB), RODATA, $576

// func normalizeLog2AVX2(p, lg *float64, z, clip float64, n int) int
TEXT ·normalizeLog2AVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ lg+8(FP), DI
	VBROADCASTSD z+16(FP), Y14
	VBROADCASTSD clip+24(FP), Y13
	MOVQ n+32(FP), CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*8), Y0
	VDIVPD  Y14, Y0, Y0 // q = p / z, correctly rounded as in Go

	// every q ordered and below +Inf, else leave this block to math.Log2
	VCMPPD    $0x11, log2const<>+0(SB), Y0, Y1 // q < +Inf, ordered
	VMOVMSKPD Y1, BX
	CMPQ      BX, $15
	JNE       done
	VMAXPD    Y13, Y0, Y1 // x = math.Max(q, clip): q is ordered, clip positive

	// Frexp(x): frac (Y2) in [0.5, 1) and float64(exp) (Y3)
	VANDPD log2const<>+32(SB), Y1, Y2
	VORPD  log2const<>+128(SB), Y2, Y2
	VPSRLQ $52, Y1, Y3                 // the exponent field (x > 0)
	VPOR   log2const<>+64(SB), Y3, Y3
	VSUBPD log2const<>+96(SB), Y3, Y3  // exact
	VCMPPD $0, log2const<>+128(SB), Y2, Y11 // frac == 0.5: the power-of-two answer
	VSUBPD log2const<>+160(SB), Y3, Y12     // float64(exp − 1), exact

	// archLog(frac), k (Y4) = +0 and f1 (Y10) = frac after its frexp
	VXORPD  Y4, Y4, Y4
	// if f1 < Sqrt2/2 { k -= 1; f1 *= 2 }: CMPSD X2, X0, 5 with X0 = HSqrt2
	VMOVUPD log2const<>+224(SB), Y5
	VCMPPD  $5, Y2, Y5, Y5             // NLT(HSqrt2, f1)
	VANDPD  log2const<>+160(SB), Y5, Y6 // 0 or 1
	VSUBPD  Y6, Y4, Y4                  // k
	VADDPD  log2const<>+160(SB), Y6, Y6 // 1 or 2
	VMULPD  Y6, Y2, Y10
	VSUBPD  log2const<>+160(SB), Y10, Y10 // f = f1 − 1
	VADDPD  log2const<>+192(SB), Y10, Y5  // 2 + f
	VDIVPD  Y5, Y10, Y6                   // s = f / (2 + f)
	VMULPD  Y6, Y6, Y7                    // s2
	VMULPD  Y7, Y7, Y8                    // s4
	// t1 := s2 * (L1 + s4*(L3+s4*(L5+s4*L7)))
	VMULPD  log2const<>+256(SB), Y8, Y9
	VADDPD  log2const<>+288(SB), Y9, Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  log2const<>+320(SB), Y9, Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  log2const<>+352(SB), Y9, Y9
	VMULPD  Y9, Y7, Y7
	// t2 := s4 * (L2 + s4*(L4+s4*L6))
	VMULPD  log2const<>+384(SB), Y8, Y9
	VADDPD  log2const<>+416(SB), Y9, Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  log2const<>+448(SB), Y9, Y9
	VMULPD  Y9, Y8, Y8
	VADDPD  Y8, Y7, Y7 // R := t1 + t2
	// hfsq := 0.5 * f * f
	VMULPD  log2const<>+128(SB), Y10, Y9
	VMULPD  Y10, Y9, Y9
	// k*Ln2Hi - ((hfsq - (s*(hfsq+R) + k*Ln2Lo)) - f)
	VADDPD  Y9, Y7, Y7
	VMULPD  Y7, Y6, Y6
	VMULPD  log2const<>+480(SB), Y4, Y7
	VADDPD  Y7, Y6, Y6
	VSUBPD  Y6, Y9, Y9
	VSUBPD  Y10, Y9, Y9
	VMULPD  log2const<>+512(SB), Y4, Y4
	VSUBPD  Y9, Y4, Y4 // Log(frac)

	// Log(frac)*(1/Ln2) + float64(exp), unfused; float64(exp−1) where frac == 0.5
	VMULPD    log2const<>+544(SB), Y4, Y4
	VADDPD    Y3, Y4, Y4
	VBLENDVPD Y11, Y12, Y4, Y4
	VMOVUPD   Y0, (SI)(AX*8)
	VMOVUPD   Y4, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET
