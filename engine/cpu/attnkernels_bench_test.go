package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkAttentionKernels runs each step of a SmolLM2 group's attention (3
// query heads over one kv head, head dim 64) alone on n positions, single-threaded,
// laid out as the KV cache holds a kv head's (one position's 64 floats after
// another), from L1 (n = 64), L2 (512), L3 (8192) and memory (262,144: a
// batch's own recent positions are there in a sweep): ns per (position, head)
// pair is the figure to compare, in wall time and in this process's CPU time (the
// one to read on a loaded machine).
func BenchmarkAttentionKernels(b *testing.B) {
	const heads, hd, stride = 3, 64, 64
	for _, n := range []int{64, 512, 8192, 262144} {
		r := rand.New(rand.NewPCG(4, 5))
		q := make([]float32, heads*hd)
		kv := make([]float32, n*stride)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		for i := range kv {
			kv[i] = float32(r.NormFloat64())
		}
		s := make([]float32, heads*n)
		out := make([]float32, heads*hd)
		var cpu0 time.Duration
		start := func(b *testing.B) {
			b.ResetTimer()
			cpu0 = processCPUTime()
		}
		perPair := func(b *testing.B) {
			pairs := float64(b.N * n * heads)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns/pair")
			if cpu := processCPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/pairs, "cpu-ns/pair")
			}
		}
		b.Run(fmt.Sprintf("scores/n=%d", n), func(b *testing.B) {
			start(b)
			for range b.N {
				groupScores(s, n, n, q, heads, hd, kv, stride, 0.125)
			}
			perPair(b)
		})
		b.Run(fmt.Sprintf("softmax/n=%d", n), func(b *testing.B) {
			start(b)
			for range b.N {
				groupScores(s, n, n, q, heads, hd, kv, stride, 0.125) // fresh scores each time
				softmaxRows(s, n, heads)
			}
			perPair(b)
		})
		b.Run(fmt.Sprintf("values/n=%d", n), func(b *testing.B) {
			start(b)
			for range b.N {
				weightedSums(out, s, n, heads, hd, kv, stride)
			}
			perPair(b)
		})
	}
}
