//go:build amd64 && !purego

#include "textflag.h"

// func weightedSumAVX2(out *float32, p *float32, v *float32, stride int, n int, m int)
//
// out[i] = Σ_j p[j]·v[j·stride + i] for i < m (a multiple of 32) over j < n (> 0):
// the attention's weighted sum of values. Each element runs the chain of axpy in
// dot.go — 0, then + round(p[j]·v[…]) for j = 0, 1, … (VMULPS then VADDPS, no FMA)
// — but in registers, 64 (then 32) elements at a time, instead of loading and
// storing out once per position. Same bits as the axpy loop.
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
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ BX, R11
	XORQ CX, CX

wideloop:
	VBROADCASTSS (SI)(CX*4), Y8
	VMULPS 0(R11), Y8, Y9
	VMULPS 32(R11), Y8, Y10
	VMULPS 64(R11), Y8, Y11
	VMULPS 96(R11), Y8, Y12
	VADDPS Y9, Y0, Y0
	VADDPS Y10, Y1, Y1
	VADDPS Y11, Y2, Y2
	VADDPS Y12, Y3, Y3
	VMULPS 128(R11), Y8, Y9
	VMULPS 160(R11), Y8, Y10
	VMULPS 192(R11), Y8, Y11
	VMULPS 224(R11), Y8, Y12
	VADDPS Y9, Y4, Y4
	VADDPS Y10, Y5, Y5
	VADDPS Y11, Y6, Y6
	VADDPS Y12, Y7, Y7
	ADDQ R8, R11
	INCQ CX
	CMPQ CX, R9
	JLT  wideloop
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $64, R10
	JMP  wide

narrow:
	CMPQ R10, $0
	JEQ  done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ BX, R11
	XORQ CX, CX

narrowloop:
	VBROADCASTSS (SI)(CX*4), Y8
	VMULPS 0(R11), Y8, Y9
	VMULPS 32(R11), Y8, Y10
	VMULPS 64(R11), Y8, Y11
	VMULPS 96(R11), Y8, Y12
	VADDPS Y9, Y0, Y0
	VADDPS Y10, Y1, Y1
	VADDPS Y11, Y2, Y2
	VADDPS Y12, Y3, Y3
	ADDQ R8, R11
	INCQ CX
	CMPQ CX, R9
	JLT  narrowloop
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)

done:
	VZEROUPPER
	RET
