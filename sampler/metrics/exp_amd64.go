//go:build amd64 && !purego

package metrics

import "golang.org/x/sys/cpu"

// useExpKernel selects expShiftedAVX2. math.Exp takes its FMA path exactly when the
// CPU has AVX and FMA (math's useFMA), and the kernel repeats that path, so it is
// used only there; tests may switch it off.
var useExpKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func expShiftedAVX2(dst *float64, src *float32, shift float64, n int) int

// expShiftedKernel is this architecture's kernel.
func expShiftedKernel(dst *float64, src *float32, shift float64, n int) int {
	return expShiftedAVX2(dst, src, shift, n)
}
