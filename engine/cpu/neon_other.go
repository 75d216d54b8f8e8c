//go:build !arm64 || purego

package cpu

// useNEON is false off arm64 (or with the purego tag).
const useNEON = false

func dotF32NEON(w *float32, x *float32, n int) float32  { panic("unreachable") }
func dotBF16NEON(w *uint16, x *float32, n int) float32  { panic("unreachable") }
func dotF16NEON(w *uint16, x *float32, n int) float32   { panic("unreachable") }
func axpyNEON(y *float32, a float32, x *float32, n int) { panic("unreachable") }
func decodeF16NEON(dst *float32, src *uint16, n int)    { panic("unreachable") }
func dotF32x8NEON(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32, part *[64]float32) {
	panic("unreachable")
}

func groupScores64NEON(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}

func groupScores128NEON(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}

func weightedSumGroup32NEON(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int) {
	panic("unreachable")
}

func swigluNEON(gate *float32, up *float32, n int) int { panic("unreachable") }
func expSubNEON(s *float32, m float32, n int) int      { panic("unreachable") }

func maxNEON(s *float32, n int) (m float32, ordered bool) { panic("unreachable") }
func scaleF64NEON(s *float32, inv float64, n int)         { panic("unreachable") }
