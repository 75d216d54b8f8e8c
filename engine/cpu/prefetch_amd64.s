//go:build amd64 && !purego

#include "textflag.h"

// func prefetchL2(p *byte, n int)
//
// PREFETCHT1 for every 64-byte line of p[0:n] (n > 0): a hint, never a fault.
TEXT ·prefetchL2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
pfloop:
	PREFETCHT1 (SI)
	ADDQ $64, SI
	SUBQ $64, CX
	JGT  pfloop
	RET
