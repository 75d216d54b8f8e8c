//go:build !amd64 || purego

package cpu

func groupScores64AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}

func maxAVX2(s *float32, n int) (m float32, ordered bool) { panic("unreachable") }
func scaleF64AVX2(s *float32, inv float64, n int)         { panic("unreachable") }

func weightedSumGroup64AVX512(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int) {
	panic("unreachable")
}

func groupScores128AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}

func groupScores64AVX2(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}

func groupScores128AVX2(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}
