// Transposed lane reduction for eight 8-lane sums (AVX2), shared by the AVX2
// kernels that finish several dot products at once (gemm_amd64.s,
// attn_avx2_amd64.s). dot's REDUCE takes one YMM of lane sums v to a scalar as
// w = v.lo + v.hi (l + l+4), then (w0 + w2) + (w1 + w3); here each step's
// shuffles take half their lanes from one product's register and half from
// another's, so one add does the step for two, then four, then eight products.
// Every add keeps REDUCE's operand order (the lower lanes as the first source),
// so NaN payloads match too.

// reduce8Perm puts FINAL8's order [0 2 4 6 | 1 3 5 7] back to 0…7 (VPERMPS).
DATA reduce8Perm<>+0(SB)/4, $0
DATA reduce8Perm<>+4(SB)/4, $4
DATA reduce8Perm<>+8(SB)/4, $1
DATA reduce8Perm<>+12(SB)/4, $5
DATA reduce8Perm<>+16(SB)/4, $2
DATA reduce8Perm<>+20(SB)/4, $6
DATA reduce8Perm<>+24(SB)/4, $3
DATA reduce8Perm<>+28(SB)/4, $7
GLOBL reduce8Perm<>(SB), RODATA|NOPTR, $32

// HALVES sets d = [a.lo + a.hi | b.lo + b.hi]: l + l+4 for products a and b
// (d must be neither), clobbering t.
#define HALVES(a, b, d, t) \
	VPERM2F128 $0x20, b, a, d \
	VPERM2F128 $0x31, b, a, t \
	VADDPS t, d, d

// PAIRS takes two HALVES results [a | b] and [c | e] to d = [a0+a2, a1+a3,
// c0+c2, c1+c3 | the same of b, of e]: l + l+2 for four products (d must be
// neither input), clobbering t.
#define PAIRS(ab, ce, d, t) \
	VSHUFPS $0x44, ce, ab, d \
	VSHUFPS $0xee, ce, ab, t \
	VADDPS t, d, d

// FINAL8 adds the pairs of two PAIRS results (products 0-3 and 4-7) into d, the
// eight totals in the order [0 2 4 6 | 1 3 5 7], clobbering t.
#define FINAL8(p03, p47, d, t) \
	VSHUFPS $0x88, p47, p03, d \
	VSHUFPS $0xdd, p47, p03, t \
	VADDPS t, d, d
