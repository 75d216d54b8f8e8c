//go:build !amd64 || purego

package cpu

// useSIMD is false off amd64 (or with the purego tag): the Go lane kernels in
// dot.go run, with the same summation order as the amd64 assembly.
const useSIMD, useAVX512 = false, false

func dotF32AVX2(w *float32, x *float32, n int) float32 { panic("unreachable") }
func dotBF16AVX2(w *uint16, x *float32, n int) float32 { panic("unreachable") }
func dotF16AVX2(w *uint16, x *float32, n int) float32  { panic("unreachable") }
func decodeBF16AVX2(dst *float32, src *uint16, n int)  { panic("unreachable") }
func decodeF16AVX2(dst *float32, src *uint16, n int)   { panic("unreachable") }
func dotF32x4AVX512(w *float32, x *float32, stride int, n int, out *[4]float32) {
	panic("unreachable")
}
func axpyAVX2(y *float32, a float32, x *float32, n int) { panic("unreachable") }
func dotF32x8AVX512(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32) {
	panic("unreachable")
}
func weightedSumAVX2(out *float32, p *float32, v *float32, stride int, n int, m int) {
	panic("unreachable")
}
func dotF32x8AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32) {
	panic("unreachable")
}
func dotF32x12AVX2(w *float32, wstride int, x *float32, xstride int, n int, out *[12]float32) {
	panic("unreachable")
}
func dotBF16EvenOddAVX512(w *uint16, stride int, xp *float32, n int, rows int, out *float32) {
	panic("unreachable")
}
