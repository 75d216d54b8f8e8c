//go:build arm64 && !purego

package metrics

// useExpKernel selects expShiftedNEON, which repeats math.Exp's arm64 assembly
// (the path it always takes there); tests may switch it off.
var useExpKernel = true

// expShiftedNEON is expShiftedAVX2 on NEON (exp_arm64.s): n a multiple of 4,
// the count done returned.
//
//go:noescape
func expShiftedNEON(dst *float64, src *float32, shift float64, n int) int

// expShiftedKernel is this architecture's kernel.
func expShiftedKernel(dst *float64, src *float32, shift float64, n int) int {
	return expShiftedNEON(dst, src, shift, n)
}
