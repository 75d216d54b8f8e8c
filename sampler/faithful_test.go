package sampler

import (
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// portSample is the SmolLM port's _sample (entr_model_torch/sampler.py, b48dc7a)
// written out step by step in float64 over the whole vocabulary, independently of
// the truncator: it returns each token's probability in the final draw.
func portSample(logits []float32, temp, topP float64, topK int, minP float64) map[int32]float64 {
	n := len(logits)
	softmax := func(x []float64) []float64 {
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, v)
		}
		out := make([]float64, len(x))
		var z float64
		for i, v := range x {
			out[i] = math.Exp(v - m)
			z += out[i]
		}
		for i := range out {
			out[i] /= z
		}
		return out
	}
	logit := make([]float64, n)
	scaled := make([]float64, n)
	for i, l := range logits {
		logit[i], scaled[i] = float64(l), float64(l)/temp
	}
	probs := softmax(scaled) // probs = F.softmax(logit / temperature)
	if minP > 0 {
		pMax := 0.0
		for _, p := range probs {
			pMax = math.Max(pMax, p)
		}
		for i, p := range probs {
			if p < minP*pMax {
				logit[i] = math.Inf(-1)
			}
		}
		probs = softmax(logit) // F.softmax(logit): the untempered logits
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return probs[idx[a]] > probs[idx[b]] })
	k := min(topK, n)
	// torch.flip: ascending; mask where cumsum − p > top_p; renormalise.
	var cum, z float64
	kept := map[int32]float64{}
	for j := k - 1; j >= 0; j-- {
		p := probs[idx[j]]
		cum += p
		if cum-p > topP {
			continue
		}
		kept[int32(idx[j])] = p
		z += p
	}
	for id := range kept {
		kept[id] /= z
	}
	return kept
}

// The faithful smollm draw matches the port's formula by Pearson's chi-square, for
// parameter sets where min_p removes tokens (so the untempered recomputation
// matters), where it does not, and where the inverted top-p bites.
func TestSmolLMFaithfulDrawFrequencies(t *testing.T) {
	logits := []float32{4.0, 3.6, 3.1, 2.9, 2.2, 1.5, 1.4, 0.3, -0.5, -2}
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{"hot min_p", Params{Temperature: 1.5, TopK: 27, TopP: 0.9, MinP: 0.2}},
		{"cold min_p", Params{Temperature: 0.5, TopK: 27, TopP: 0.9, MinP: 0.03}},
		{"no min_p", Params{Temperature: 0.8, TopK: 6, TopP: 0.9, MinP: 0}},
		{"inverted top-p", Params{Temperature: 2, TopK: 8, TopP: 0.3, MinP: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := portSample(logits, tc.p.Temperature, tc.p.TopP, tc.p.TopK, tc.p.MinP)
			d := fullDist(logits, 0)
			var tr truncator
			c := tr.smollmSample(d, tc.p)
			w := tr.weights(c)
			ids := make([]int32, 0, len(want))
			for id := range want {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
			index := map[int32]int{}
			probs := make([]float64, len(ids))
			for i, id := range ids {
				index[id], probs[i] = i, want[id]
			}
			const n = 20000
			counts := make([]int, len(ids))
			r := NewRNG(11, "smollm/"+tc.name, 0)
			for range n {
				id := d.Candidates[c.start+r.race(w)].ID
				i, ok := index[id]
				require.True(t, ok, "token %d outside the port's support %v", id, ids)
				counts[i]++
			}
			p, stat, df := chiSquareP(t, counts, probs, n)
			assert.Greater(t, p, chiAlpha, "chi2 %.2f df %d p %.3g", stat, df, p)
		})
	}
}

// The port's temperature only decides the min-p survivors: above min_p = 0 the
// draw's probabilities are the untempered ones, so two temperatures that keep the
// same survivors give the same draw distribution.
func TestSmolLMTemperatureOnlyDecidesSurvivors(t *testing.T) {
	logits := []float32{5, 4.5, 4.4, 1, 0}
	d := fullDist(logits, 0)
	var a, b truncator
	ca := a.smollmSample(d, Params{Temperature: 0.7, TopK: 27, TopP: 1, MinP: 0.1})
	cb := b.smollmSample(d, Params{Temperature: 1.3, TopK: 27, TopP: 1, MinP: 0.1})
	require.Equal(t, 3, ca.end-ca.start)
	require.Equal(t, a.weights(ca), b.weights(cb))
	// The survivors weigh exp(l − l0): untempered.
	require.InDeltaSlice(t, []float64{1, math.Exp(-0.5), math.Exp(-0.6)}, a.weights(ca), 1e-7)
}

// Presets: the view each variant's upstream computes its statistics in, its
// faithful draw, first-token rule and clarifying token.
func TestVariantDefinitions(t *testing.T) {
	for _, tc := range []struct {
		flag        string
		view        metrics.AttnView
		draw        string
		firstArgmax bool
		clarify     string
	}{
		{"entropix:original,faithful=true", metrics.AttnView{Mode: metrics.Padded, PadLen: 4096}, "jax", true, " ..."},
		{"entropix:frog,faithful=true", metrics.AttnView{Mode: metrics.Padded, PadLen: 4096}, "jax", true, " ..."},
		{"entropix:smollm-360m,faithful=true", metrics.AttnView{Mode: metrics.Padded, PadLen: 2048}, "smollm", false, "..."},
		{"entropix:frog,attn_mode=masked", metrics.AttnView{Mode: metrics.Masked}, "jax", false, " ..."},
		{"entropix:smollm-135m,pad_len=8192", metrics.AttnView{Mode: metrics.Padded, PadLen: 8192}, "smollm", false, "..."},
	} {
		spec, err := ParseFlag(tc.flag)
		require.NoError(t, err, tc.flag)
		var asked string
		smp, err := spec.New(func(s string) (int32, bool) { asked = s; return 7, true })
		require.NoError(t, err, tc.flag)
		e := smp.(*Entropix)
		assert.Equal(t, tc.view, e.AttnView(), tc.flag)
		assert.Equal(t, tc.draw, e.Config().FaithfulDraw, tc.flag)
		cfg := e.Config()
		assert.Equal(t, tc.firstArgmax, cfg.firstTokenArgmax(), tc.flag)
		assert.Equal(t, tc.clarify, asked, tc.flag)
		desc := e.Describe()
		assert.Equal(t, tc.view.String() == "masked", desc["attn_mode"] == "masked", tc.flag)
	}
	for flag, msg := range map[string]string{
		"entropix,attn_mode=full":         "field attn_mode",
		"entropix,pad_len=0":              "field pad_len",
		"entropix,randomness=upstream":    "needs faithful: true",
		"entropix,faithful_draw=torch":    "field faithful_draw",
		"entropix,randomness=per_problem": "field randomness",
	} {
		_, err := ParseFlag(flag)
		require.ErrorContains(t, err, msg, flag)
	}
}

// Statistics computed in another view than the variant's are refused (frog's
// thresholds on masked statistics would silently mean something else).
func TestEntropixRefusesForeignView(t *testing.T) {
	frog := mustSpec(t, "entropix:frog")
	d := fullDist(testLogits(300, 2), 0)
	var a metrics.AttnStats
	require.NoError(t, a.Compute([]float32{0.1, 0.2, 0.3, 0.4}, 2, 2, metrics.Masked, 0))
	_, err := frog.Sample(d, &a, []int32{1}, NewRNG(1, "v", 0))
	require.ErrorContains(t, err, "needs attention statistics in view padded:4096, got masked")
	require.NoError(t, a.Compute([]float32{0.1, 0.2, 0.3, 0.4}, 2, 2, metrics.Padded, 4096))
	_, err = frog.Sample(d, &a, []int32{1}, NewRNG(1, "v", 0))
	require.NoError(t, err)
}

// randomness: upstream restarts one fixed stream at every step, so (as with the JAX
// original's PRNGKey(1337)) seeds, problems and steps all see the same noise: the
// same distribution gives the same token everywhere. The default per-sequence
// streams differ across seeds.
func TestUpstreamRandomnessRepeats(t *testing.T) {
	d := fullDist(testLogits(2000, 9), 0)
	attn := adaptiveAttn
	up := mustSpec(t, "entropix,faithful=true,randomness=upstream,first_token_argmax=false")
	own := mustSpec(t, "entropix,faithful=true,first_token_argmax=false")
	upTokens, ownTokens := map[int32]bool{}, map[int32]bool{}
	for seed := range uint64(40) {
		r := NewRNG(seed, "p", 0)
		for step := range 3 {
			dec, err := up.Sample(d, &attn, make([]int32, step), r)
			require.NoError(t, err)
			upTokens[dec.Token] = true
		}
		dec, err := own.Sample(d, &attn, nil, NewRNG(seed, "p", 0))
		require.NoError(t, err)
		ownTokens[dec.Token] = true
	}
	assert.Len(t, upTokens, 1, "upstream randomness: one token for every seed and step")
	assert.Greater(t, len(ownTokens), 1, "per-sequence streams vary with the seed")
}
