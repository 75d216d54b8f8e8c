package sampler

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// needDist is the Dist an engine fills for a sampler that declared need: only
// that much sorted, the rest sorted in if a draw reads further.
func needDist(logits []float32, need *metrics.Need, ent, vent float64) *metrics.Dist {
	var d metrics.Dist
	metrics.FillDistNeed(&d, logits, 0, need)
	if ent >= 0 { // steer Entropix's rules into one strategy or another
		d.Entropy, d.Varentropy = ent, vent
	}
	return &d
}

// Every sampler decides the same from a Dist sorted only as far as it declared,
// from one sorted as little as possible (every read past the first candidate sorts
// the rest in), and from the whole sorted list: same token, log-probabilities,
// survivors, tail mass and strategy, draw after draw of one RNG stream.
func TestCandidateNeedDecidesAsTheWholeList(t *testing.T) {
	flags := []string{"greedy", "temperature", "temperature,temperature=0.7", "top_k", "top_k,top_k=3",
		"top_p", "top_p,temperature=0.7", "min_p", "min_p,temperature=0.7,min_p=0.05", "min_p,temperature=1.5,min_p=0.02",
		"combined:vllm-v1,top_k=40,top_p=0.9,min_p=0.05", "combined:hf,top_p=0.9,min_p=0.1",
		"combined:vllm-v1,temperature=0.8,min_p=0.2", "combined:hf,temperature=1,min_p=0.3",
		"entropix", "entropix:frog", "entropix,faithful=true", "entropix:smollm-135m,faithful=true"}
	flat := testLogits(3000, 4)
	for i := range flat {
		flat[i] /= 8
	}
	ties := make([]float32, 2000)
	for i := range ties {
		ties[i] = float32(i%5) - float32(i%3)
	}
	rows := map[string][]float32{"llm-like": testLogits(4000, 5), "flat": flat, "ties": ties}
	// (entropy, varentropy) pairs that put Entropix in its different branches; −1
	// keeps the Dist's own.
	steer := [][2]float64{{-1, 0}, {6, 0.05}, {0.001, 0.001}, {0.5, 20}, {6, 20}}
	strategies := map[Strategy]bool{}
	for _, f := range flags {
		smp := mustSpec(t, f)
		declared := smp.(CandidateNeeder).CandidateNeed()
		for name, logits := range rows {
			for _, st := range steer {
				for _, hist := range [][]int32{nil, {1}, {1, 3}} {
					if hist == nil && strings.Contains(f, "smollm") {
						continue // its first token reads the prompt's metrics (SampleFirst)
					}
					var got [3]string
					for i, need := range []*metrics.Need{nil, declared, {}} {
						d := needDist(logits, need, st[0], st[1])
						attn := adaptiveAttn
						r := NewRNG(7, name, 0)
						var all string
						for range 4 {
							dec, err := smp.Clone().Sample(d, &attn, hist, r)
							require.NoError(t, err)
							strategies[dec.Strategy] = true
							all += fmt.Sprintf("%+v\n", dec)
						}
						got[i] = all
					}
					require.Equal(t, got[0], got[1], "%s on %s %v %v: declared %+v", f, name, st, hist, declared)
					require.Equal(t, got[0], got[2], "%s on %s %v %v: nothing declared", f, name, st, hist)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, len(strategies), 5, "Entropix's branches: %v", strategies)
}

// The sweep's samplers declare enough that no draw sorts the rest of the
// vocabulary in: the engine's parallel sort up front is the only one.
func TestCandidateNeedIsEnoughForTheSweepSamplers(t *testing.T) {
	logits := testLogits(49152, 8)
	for _, f := range []string{"greedy", "min_p", "entropix", "top_k", "combined:vllm-v1,top_k=40,top_p=0.9,min_p=0.05"} {
		smp := mustSpec(t, f)
		need := smp.(CandidateNeeder).CandidateNeed()
		require.NotNil(t, need, f)
		for _, st := range [][2]float64{{-1, 0}, {6, 0.05}, {0.5, 20}, {6, 20}} {
			d := needDist(logits, need, st[0], st[1])
			attn := adaptiveAttn
			r := NewRNG(3, f, 0)
			for range 8 {
				_, err := smp.Sample(d, &attn, []int32{1}, r)
				require.NoError(t, err)
			}
			assert.Less(t, len(d.Candidates), d.Len()/2, "%s %v: sorted %d of %d", f, st, len(d.Candidates), d.Len())
		}
	}
}

func TestCandidateNeedOfEachSampler(t *testing.T) {
	for _, tc := range []struct {
		flag string
		want *metrics.Need
	}{
		{"greedy", &metrics.Need{Top: 1}},
		{"combined:vllm-v1,temperature=1e-6", &metrics.Need{Top: 1}},
		{"top_k,top_k=7", &metrics.Need{Top: 7}},
		{"min_p", &metrics.Need{Top: 1, Within: math.Log(10) * minPReach}},
		{"combined:vllm-v1,temperature=0.5,top_p=0.9,min_p=0.1", &metrics.Need{Top: 1, Within: 0.5 * math.Log(10) * minPReach}},
		{"combined:hf,top_p=0.9,min_p=0.1", nil}, // top-p walks first
		{"temperature", nil},
		{"top_p", nil},
		{"entropix", &metrics.Need{Top: 100}}, // ada_top_k_max
		{"entropix,ada_top_k_max=10,top_k=30", &metrics.Need{Top: 45}},
		{"entropix,faithful=true", nil},
	} {
		need := mustSpec(t, tc.flag).(CandidateNeeder).CandidateNeed()
		if tc.want == nil {
			assert.Nil(t, need, tc.flag)
			continue
		}
		require.NotNil(t, need, tc.flag)
		assert.Equal(t, tc.want.Top, need.Top, tc.flag)
		assert.InDelta(t, tc.want.Within, need.Within, 1e-12, tc.flag)
	}
}
