// A64 encodings of the AdvSIMD instructions Go's arm64 assembler has no
// mnemonics for, shared by engine/cpu's arm64 kernels (register numbers, not
// names: d the destination, n and m the sources). One definition each, so a
// kernel reuses an encoding instead of writing it again.

// Vector float32 arithmetic, four lanes: Vd = Vn op Vm.
#define FMUL4S(d, n, m) WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d))
#define FADD4S(d, n, m) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d))
#define FSUB4S(d, n, m) WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d))
#define FDIV4S(d, n, m) WORD $(0x6E20FC00 | ((m)<<16) | ((n)<<5) | (d))
#define FMAX4S(d, n, m) WORD $(0x4E20F400 | ((m)<<16) | ((n)<<5) | (d))
#define FNEG4S(d, n) WORD $(0x6EA0F800 | ((n)<<5) | (d))
#define FRINTM4S(d, n) WORD $(0x4E219800 | ((n)<<5) | (d))
#define FCVTZS4S(d, n) WORD $(0x4EA1B800 | ((n)<<5) | (d))
// FMUL2D: the same in two float64 lanes.
#define FMUL2D(d, n, m) WORD $(0x6E60DC00 | ((m)<<16) | ((n)<<5) | (d))
// FMLAE sets Vd.4S += Vn.4S · Vm.S[i], fused (one rounding).
#define FMLAE(d, n, m, i) WORD $(0x4F801000 | (((i)&1)<<21) | (((i)>>1)<<11) | ((m)<<16) | ((n)<<5) | (d))

// Pairwise and across-lane: FADDP4S sets Vd = [n0+n1, n2+n3, m0+m1, m2+m3];
// FADDP2S sets Sd = Vn[0] + Vn[1]; FMAXV4S sets Sd to the largest lane of Vn;
// UMINV4S and UMAXV4S set Sd to the unsigned least / largest lane of Vn.4S.
#define FADDP4S(d, n, m) WORD $(0x6E20D400 | ((m)<<16) | ((n)<<5) | (d))
#define FADDP2S(d, n) WORD $(0x7E30D800 | ((n)<<5) | (d))
#define FMAXV4S(d, n) WORD $(0x6E30F800 | ((n)<<5) | (d))
#define UMINV4S(d, n) WORD $(0x6EB1A800 | ((n)<<5) | (d))
#define UMAXV4S(d, n) WORD $(0x6EB0A800 | ((n)<<5) | (d))

// Compares: FCMGE4S sets each lane of Vd to all ones where Vn ≥ Vm (false for
// NaN); CMHI4S where Vn.4S > Vm.4S, unsigned; else zero.
#define FCMGE4S(d, n, m) WORD $(0x6E20E400 | ((m)<<16) | ((n)<<5) | (d))
#define CMHI4S(d, n, m) WORD $(0x6EA03400 | ((m)<<16) | ((n)<<5) | (d))

// Moves: EXT8 sets Vd = [Vn's upper 8 bytes, Vm's lower 8 bytes]; ZIP1D and
// ZIP2D set Vd = [Vn's lower 64 bits, Vm's lower 64 bits] and the same of the
// upper 64 bits.
#define EXT8(d, n, m) WORD $(0x6E004000 | ((m)<<16) | ((n)<<5) | (d))
#define ZIP1D(d, n, m) WORD $(0x4EC03800 | ((m)<<16) | ((n)<<5) | (d))
#define ZIP2D(d, n, m) WORD $(0x4EC07800 | ((m)<<16) | ((n)<<5) | (d))

// Conversions, all exact or rounding to nearest even as Go's conversions do:
// SHLL4S and SHLL24S widen the lower / upper four halves of Vn, each shifted left
// by 16 (bfloat16 to float32); FCVTL4S / FCVTL24S widen the lower / upper four
// float16 of Vn to float32 (subnormals included: Go leaves FPCR.FZ16 clear);
// FCVTL2D / FCVTL22D the lower / upper two float32 to
// float64; FCVTN2S / FCVTN22S round Vn's two float64 to float32 into the lower /
// upper half of Vd.
#define SHLL4S(d, n) WORD $(0x2E613800 | ((n)<<5) | (d))
#define SHLL24S(d, n) WORD $(0x6E613800 | ((n)<<5) | (d))
#define FCVTL4S(d, n) WORD $(0x0E217800 | ((n)<<5) | (d))
#define FCVTL24S(d, n) WORD $(0x4E217800 | ((n)<<5) | (d))
#define FCVTL2D(d, n) WORD $(0x0E617800 | ((n)<<5) | (d))
#define FCVTL22D(d, n) WORD $(0x4E617800 | ((n)<<5) | (d))
#define FCVTN2S(d, n) WORD $(0x0E616800 | ((n)<<5) | (d))
#define FCVTN22S(d, n) WORD $(0x4E616800 | ((n)<<5) | (d))
