//go:build amd64 && !purego

#include "textflag.h"

// func weightedSumAVX2(out *float32, p *float32, v *float32, stride int, n int, m int)
//
// out[i] += p[j]·v[j·stride + i] for i < m (a multiple of 32) and j = 0 … n−1 in
// order (n > 0): the attention's weighted sum of values, one head. Each element
// runs the chain of axpy in dot.go — out[i], then + round(p[j]·v[…]) for j = 0, 1,
// … (VMULPS then VADDPS, no FMA) — but in registers, 64 (then 32) elements at a
// time, instead of loading and storing out once per position. Same bits as the
// axpy loop. Continuing from out is what lets addWeightedValues run a head over
// stretches of positions (a shared prefix read in place, then the slot's own),
// and the heads of a group in turn over each stretch. Sixty-four elements keep
// eight independent adds in flight per position; the last 32 of a head dim such
// as 96 wait on four adds' latency.

// WSUM4 adds p[j]·v (Y8 holds p[j]) for the 32 floats at o0..o3(R11) to a0..a3.
#define WSUM4(o0, o1, o2, o3, a0, a1, a2, a3) \
	VMULPS o0(R11), Y8, Y9 \
	VMULPS o1(R11), Y8, Y10 \
	VMULPS o2(R11), Y8, Y11 \
	VMULPS o3(R11), Y8, Y12 \
	VADDPS Y9, a0, a0 \
	VADDPS Y10, a1, a1 \
	VADDPS Y11, a2, a2 \
	VADDPS Y12, a3, a3

#define LOAD4(o0, o1, o2, o3, a0, a1, a2, a3) \
	VMOVUPS o0(DI), a0 \
	VMOVUPS o1(DI), a1 \
	VMOVUPS o2(DI), a2 \
	VMOVUPS o3(DI), a3

#define STORE4(o0, o1, o2, o3, a0, a1, a2, a3) \
	VMOVUPS a0, o0(DI) \
	VMOVUPS a1, o1(DI) \
	VMOVUPS a2, o2(DI) \
	VMOVUPS a3, o3(DI)

// NEXTPOS steps R11 to the next position's values and loops to label while j < n.
#define NEXTPOS(label) \
	ADDQ R8, R11 \
	INCQ CX \
	CMPQ CX, R9 \
	JLT  label

TEXT ·weightedSumAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ v+16(FP), BX
	MOVQ stride+24(FP), R8
	SHLQ $2, R8
	MOVQ n+32(FP), R9
	MOVQ m+40(FP), R10

wide:
	CMPQ R10, $64
	JLT  narrow
	LOAD4(0, 32, 64, 96, Y0, Y1, Y2, Y3)
	LOAD4(128, 160, 192, 224, Y4, Y5, Y6, Y7)
	MOVQ BX, R11
	XORQ CX, CX

wideloop:
	VBROADCASTSS (SI)(CX*4), Y8
	WSUM4(0, 32, 64, 96, Y0, Y1, Y2, Y3)
	WSUM4(128, 160, 192, 224, Y4, Y5, Y6, Y7)
	NEXTPOS(wideloop)
	STORE4(0, 32, 64, 96, Y0, Y1, Y2, Y3)
	STORE4(128, 160, 192, 224, Y4, Y5, Y6, Y7)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $64, R10
	JMP  wide

narrow:
	CMPQ R10, $0
	JEQ  done
	LOAD4(0, 32, 64, 96, Y0, Y1, Y2, Y3)
	MOVQ BX, R11
	XORQ CX, CX

narrowloop:
	VBROADCASTSS (SI)(CX*4), Y8
	WSUM4(0, 32, 64, 96, Y0, Y1, Y2, Y3)
	NEXTPOS(narrowloop)
	STORE4(0, 32, 64, 96, Y0, Y1, Y2, Y3)

done:
	VZEROUPPER
	RET
