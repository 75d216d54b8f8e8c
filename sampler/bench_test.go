package sampler

import (
	"math/rand/v2"
	"testing"
)

// benchLogits look like a language model's next-token logits over a large
// vocabulary: a Gaussian floor and twenty strong candidates, about 2 bits of entropy
// and 2% of the mass outside the top 1024.
func benchLogits(n int) []float32 {
	r := rand.New(rand.NewPCG(1, 0))
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64() * 2)
	}
	for i := range 20 {
		l[r.IntN(n)] += 14 - 0.3*float32(i)
	}
	return l
}

// BenchmarkSample measures one sampled token (Sample only: the Dist is prepared once,
// as the engine would hand it over) for every sampler, with the top 1024 candidates
// of a 128256-token vocabulary (Llama 3) and with the whole vocabulary.
//
//	go test -run '^$' -bench BenchmarkSample -benchmem ./sampler/
func BenchmarkSample(b *testing.B) {
	const vocab = 128256
	logits := benchLogits(vocab)
	dists := []struct {
		name string
		k    int
	}{{"k1024", 1024}, {"full128256", 0}}
	specs := []string{
		"greedy", "temperature", "top_k", "top_p", "min_p",
		"combined:hf,top_k=40,top_p=0.9,min_p=0.05,temperature=0.7",
		"combined:vllm-v1,top_k=40,top_p=0.9,min_p=0.05,temperature=0.7",
		"entropix", "entropix,faithful=true", "entropix:frog", "entropix:smollm-360m",
	}
	for _, dd := range dists {
		d := fullDist(logits, dd.k)
		for _, f := range specs {
			smp := mustSpec(b, f)
			attn := adaptiveAttn
			hist := []int32{1, 2, 3}
			r := NewRNG(1, f, 0)
			if _, err := smp.Sample(d, &attn, hist, r); err != nil { // sizes the scratch buffers
				b.Fatal(err)
			}
			dec, _ := smp.Sample(d, &attn, hist, r)
			b.Run(dd.name+"/"+f+"/"+string(dec.Strategy), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := smp.Sample(d, &attn, hist, r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
