//go:build amd64 && !purego

package cpu

// groupScores64AVX512 scores 16·blocks keys against a GQA group's query heads,
// head dim 64 (attn_amd64.s); groupScores says what it computes.
//
//go:noescape
func groupScores64AVX512(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
