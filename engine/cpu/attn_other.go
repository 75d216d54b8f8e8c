//go:build !amd64 || purego

package cpu

func groupScores64AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int) {
	panic("unreachable")
}
