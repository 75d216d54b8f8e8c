//go:build amd64 && !purego

#include "textflag.h"

// func dotBF16EvenOddAVX512(w *uint16, stride int, xp *float32, n int, rows int, out *float32)
//
// rows consecutive bfloat16 rows (w + r·stride) against one activation vector,
// out[r] bit for bit what dotBF16AVX2 returns for row r, at two widening
// instructions per 32 weights instead of four: a 64-byte load of 32 halves,
// shifted left 16, gives the even elements as float32 and, masked to the high
// halves, the odd ones. So each sum's lanes sit in an even/odd order: Z0 holds
// lanes 0, 2, …, 30 and Z1 lanes 1, 3, …, 31. xp is the activations permuted the
// same way (each 32 as its 16 even elements, then its 16 odd ones: see
// evenOddX). Lane l still runs acc = acc + round(w·x) over elements l, l+32, …,
// and the reduction below is REDUCE's tree, step for step, on that order:
//
//	lane l + l+16     even: E[k] + E[k+8]   (the halves of Z0), odd likewise
//	then + l+8        even: E[k] + E[k+4],  odd likewise
//	then + l+4        even: E[k] + E[k+2],  odd likewise
//	(0+2)+(1+3)       (E[0] + E[1]) + (O[0] + O[1])
//
// The rows stream through memory one after another, as the single-row kernels
// do (four interleaved row streams were slower from memory). n (> 0) is a
// multiple of 32. Registers: SI row, R11 next row, DI activations, R12 their
// start, CX elements left, BX rows left, R8 stride in bytes, DX out; Z0-Z1 sums,
// Z2-Z3 products, Z31 the mask 0xffff0000.
TEXT ·dotBF16EvenOddAVX512(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), R11
	MOVQ stride+8(FP), R8
	SHLQ $1, R8
	MOVQ xp+16(FP), R12
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), DX
	MOVL $0xffff0000, AX
	VPBROADCASTD AX, Z31
eorow:
	MOVQ R11, SI
	MOVQ R12, DI
	MOVQ n+24(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
eoloop:
	VPSLLD $16, 0(SI), Z2
	VPANDD 0(SI), Z31, Z3
	VMULPS 0(DI), Z2, Z2
	VMULPS 64(DI), Z3, Z3
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JNZ  eoloop
	VEXTRACTF64X4 $1, Z0, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF64X4 $1, Z1, Y3
	VADDPS Y3, Y1, Y1
	VEXTRACTF128 $1, Y0, X2
	VADDPS X2, X0, X0
	VEXTRACTF128 $1, Y1, X3
	VADDPS X3, X1, X1
	VMOVHLPS X0, X0, X2
	VADDPS X2, X0, X0
	VMOVHLPS X1, X1, X3
	VADDPS X3, X1, X1
	VMOVSHDUP X0, X2
	VADDSS X2, X0, X0
	VMOVSHDUP X1, X3
	VADDSS X3, X1, X1
	VADDSS X1, X0, X0
	MOVSS X0, 0(DX)
	ADDQ $4, DX
	ADDQ R8, R11
	DECQ BX
	JNZ  eorow
	VZEROUPPER
	RET
