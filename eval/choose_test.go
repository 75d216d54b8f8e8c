package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Choosing side by side gives every sequence the token it gets alone: each
// choice reads only its own sampler, RNG stream and output (run it with -race).
func TestChooseAllMatchesOneAtATime(t *testing.T) {
	const n = 13
	resolve := NewSamplerResolver(nil, nil)
	factories := map[string]SamplerFactory{}
	for _, name := range []string{"greedy", "min_p", "top_k"} {
		f, err := resolve(sampler.Spec{Name: name})
		require.NoError(t, err)
		factories[name] = f
	}
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]engine.Output, n)
	for i := range out {
		logits := make([]float32, 3000)
		for j := range logits {
			logits[j] = float32(r.NormFloat64() * 0.6)
		}
		metrics.FillDistNeed(&out[i].Dist, logits, 0, &metrics.Need{Top: 1 + i%3})
	}
	choose := func(threads int) []string {
		s := &scheduler{lim: &limits{}, threads: threads, out: out}
		for i := range n {
			name := []string{"greedy", "min_p", "top_k"}[i%3]
			f := factories[name]
			s.live = append(s.live, &sequence{
				item:   workItem{problem: &preparedProblem{Problem: Problem{ID: fmt.Sprint("p", i)}}, sampler: f},
				tokens: []int32{7, 8}, promptLen: 1, chooser: f.NewSequence(1, fmt.Sprint("p", i), 0),
			})
			s.in = append(s.in, engine.Input{Slot: i})
			s.ready = append(s.ready, i)
		}
		var got []string
		for range 3 { // a few steps of each sequence's RNG stream
			s.chooseAll()
			for _, c := range s.choices {
				require.NoError(t, c.err)
				got = append(got, fmt.Sprintf("%+v", c.d))
			}
		}
		return got
	}
	want := choose(1)
	for _, threads := range []int{2, 5} {
		require.Equal(t, want, choose(threads), "%d threads", threads)
	}
}
