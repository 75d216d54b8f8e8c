//go:build amd64 && !purego

package cpu

// groupScores64AVX512 scores 16·blocks keys against a GQA group's query heads,
// head dim 64 (attn_amd64.s); groupScores says what it computes.
//
//go:noescape
func groupScores64AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)

// The softmax passes (softmax_amd64.s); softmaxRows says what they compute.

//go:noescape
func maxAVX2(s *float32, n int) (m float32, ordered bool)

//go:noescape
func sumsF64(s0, s1, s2, s3 *float32, n int, z *[4]float64)

//go:noescape
func scaleF64AVX2(s *float32, inv float64, n int)

// weightedSumGroup64AVX512 adds up to four heads' weighted sums of values over
// 64 of their elements (attn_amd64.s); addWeightedValues says what it computes.
//
//go:noescape
func weightedSumGroup64AVX512(out *float32, ostride int, p *float32, pstride int, heads int, v *float32, vstride int, n int)

// groupScores128AVX512 is groupScores64AVX512 for head dim 128.
//
//go:noescape
func groupScores128AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)

// groupScores64AVX2 is groupScores64AVX512 on AVX2 alone, in blocks of 8 keys
// (attn_avx2_amd64.s).
//
//go:noescape
func groupScores64AVX2(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)

// groupScores128AVX2 is groupScores64AVX2 for head dim 128.
//
//go:noescape
func groupScores128AVX2(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
