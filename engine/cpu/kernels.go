package cpu

import "runtime"

// KernelChoice names the kernel that one operation of the forward pass runs on
// this CPU in this build.
type KernelChoice struct {
	Op, Kernel string
}

// Kernels lists the kernels the engine picks here, read from the same switches
// the dispatch reads (so a benchmark can print what actually ran), and whether
// BF16 matmul precision has a fast kernel here (AVX512_BF16, AVX2 + FMA, or
// NEON on arm64); without one that precision runs a Go emulation far slower
// than fp32. The attention entries are those of head dims 64 and 128; others
// may fall back to dot and axpy (attention.go says which).
func Kernels() (choices []KernelChoice, bf16Fast bool) {
	pick := func(avx512, avx2, neon, generic string) string {
		switch {
		case useAVX512:
			return avx512
		case useSIMD:
			return avx2
		case useNEON:
			return neon
		}
		return generic
	}
	goLanes := "Go lane kernels"
	if runtime.GOARCH == "amd64" {
		goLanes += " (no AVX2/F16C, or -tags purego)"
	}
	bf16 := "bf16KernelGo (Go emulation)"
	switch {
	case useBF16Asm:
		bf16 = "bf16Kernel12/4/1 (AVX512_BF16)"
	case useBF16FMA && runtime.GOARCH == "arm64":
		bf16 = "bf16FMAKernel6/4/2/1 (NEON FMLA; the Go emulation for panels below the exponent floor or with infinities)"
	case useBF16FMA:
		bf16 = "bf16FMAKernel6/4/2/1 (AVX2 + FMA; the Go emulation for panels below the exponent floor)"
	}
	return []KernelChoice{
		{"matmul fp32, several tokens", pick("dotF32x8AVX512 (AVX-512F, 2 rows × 4 tokens)",
			"dotF32x12AVX2 (AVX2, 2 rows × 6 tokens; dotF32x8AVX2 for 4)", "dotF32x8NEON (NEON, 2 rows × 4 tokens)", goLanes)},
		{"matmul fp32, one token, BF16 weights", pick("dotBF16EvenOddAVX512 (AVX-512F, 16 rows)",
			"dotBF16AVX2 (AVX2, one row)", "dotBF16NEON (NEON, one row)", goLanes)},
		{"matmul bf16 precision", bf16},
		{"attention scores", pick("groupScores64AVX512 (16 keys × the group's heads)",
			"groupScores64AVX2 (8 keys × the group's heads)", "groupScores64NEON (NEON, 4 keys × the group's heads)", goLanes)},
		{"attention weighted sum", pick("weightedSumGroup64AVX512 (4 heads × 64)",
			"weightedSumAVX2 (1 head, 64 elements at a time)", "weightedSumGroup32NEON (NEON, 2 heads × 32)", "axpy (Go)")},
		{"softmax, SiLU exp", pick("expSubAVX2, swigluAVX2 (AVX2)", "expSubAVX2, swigluAVX2 (AVX2)", "expSubNEON, swigluNEON, maxNEON, scaleF64NEON (NEON)", "expf (Go)")},
	}, useBF16Asm || useBF16FMA
}
