package cpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKernelsNameTheDispatch checks that Kernels reports the kernels the
// dispatch switches select: the Go ones with SIMD off, the AVX2 ones on AVX2
// alone (where the CPU has it), the NEON ones on arm64.
func TestKernelsNameTheDispatch(t *testing.T) {
	kernelOf := func(op string) string {
		choices, _ := Kernels()
		for _, c := range choices {
			if c.Op == op {
				return c.Kernel
			}
		}
		t.Fatalf("Kernels lists no %q", op)
		return ""
	}
	for _, tc := range []struct {
		name                 string
		set                  func(testing.TB)
		matmul, scores, wsum string
	}{
		{"go", func(t testing.TB) { setSIMD(t, false) }, "Go lane kernels", "Go lane kernels", "axpy (Go)"},
		{"avx2", setAVX2Only, "dotF32x12AVX2 (AVX2, 2 rows × 6 tokens", "groupScores64AVX2 (8 keys × the group's heads)", "weightedSumAVX2 (1 head, 64 elements at a time)"},
		{"neon", func(t testing.TB) { setSIMD(t, true) }, "dotF32x8NEON (NEON, 2 rows × 4 tokens)", "groupScores64NEON (NEON, 4 keys × the group's heads)", "weightedSumGroup32NEON (NEON, 2 heads × 32)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.set(t)
			if tc.name == "avx2" && !useSIMD {
				t.Skip("no AVX2/F16C kernels on this CPU or build")
			}
			if tc.name == "neon" && !useNEON {
				t.Skip("no NEON kernels: not arm64, or -tags purego")
			}
			require.Contains(t, kernelOf("matmul fp32, several tokens"), tc.matmul)
			require.Contains(t, kernelOf("attention scores"), tc.scores)
			require.Equal(t, tc.wsum, kernelOf("attention weighted sum"))
		})
	}
	_, fast := Kernels()
	require.Equal(t, useBF16Asm || useBF16FMA, fast)
	if useBF16FMA {
		require.Contains(t, kernelOf("matmul bf16 precision"), "bf16FMAKernel6/4/2/1")
	}
}
