package eval

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// BenchmarkCorpusAggregate is the finish-time cost of a corpus metric on a
// GSM8K-sized run (1,319 docs of ~20 words): the score and lm-eval's
// 100-resample bootstrap standard error.
func BenchmarkCorpusAggregate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a dog cat man bit sat on mat it was not unexpected first had just bitten him surprising")
	sentence := func() string {
		w := make([]string, 15+rng.IntN(10))
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ") + "."
	}
	docs := make([]json.RawMessage, 1319)
	for i := range docs {
		docs[i], _ = pyjson.Dumps([]any{sentence(), sentence()})
	}
	for _, metric := range []string{"bleu", "chrf", "ter"} {
		b.Run(metric, func(b *testing.B) {
			spec := datasets.MetricSpec{Metric: metric, Aggregation: metric}
			for b.Loop() {
				if _, _, err := aggregateDocs(TaskSpec{Name: "bench"}, spec, nil, docs); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", metric, err))
				}
			}
		})
	}
}
