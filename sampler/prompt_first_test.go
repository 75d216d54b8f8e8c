package sampler

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// spikeLogits has one token (id 42) far above N(0, 1) noise: entropy ≈ 0 bits.
func spikeLogits(n int) []float32 {
	r := rand.New(rand.NewPCG(5, 6))
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64())
	}
	l[42] = 40
	return l
}

// The SmolLM port's faithful first token runs its rules on calculate_metrics over
// the whole prefill (means over every prompt position), while the argmax, the
// draw and the scores read the last position's logits. The expected decisions
// below are derived by hand from entr_model_torch/sampler.py at b48dc7a with the
// smollm-360m thresholds (entropy 0.5/1.484/2.07, varentropy 3.18/3.75/6.08,
// attention entropy 8.889/8.89/8.891, attention varentropy 5.112/5.8125/6.82).
func TestSmolLMFaithfulFirstTokenReadsPromptMeans(t *testing.T) {
	smp := mustSpec(t, "entropix:smollm-360m,faithful=true").(*Entropix) // clarifying id 3
	require.True(t, smp.PromptMetrics())
	peaked := fullDist(spikeLogits(3000), 0)
	flat := fullDist(testLogits(3000, 4), 0)
	require.Less(t, peaked.Entropy, 0.5)
	lowAttn := &metrics.AttnStats{Entropy: 1, Varentropy: 0.1, VarentropyDDOF1: 0.1}

	t.Run("last position LELV, prompt means HELV: the clarifying token", func(t *testing.T) {
		// The ddof-0 attention varentropy is above the low threshold: reading it
		// instead of the port's torch.var (ddof 1) would leave HELV.
		p := &metrics.PromptStats{Positions: 9, LogitsEntropy: 3, LogitsVarentropy: 1, AttnEntropy: 2,
			AttnVarentropy: 9, AttnVarentropyDDOF1: 1}
		dec, err := smp.SampleFirst(peaked, lowAttn, p, NewRNG(1, "p", 0))
		require.NoError(t, err)
		assert.Equal(t, StrategyInsertClarifying, dec.Strategy)
		assert.Equal(t, int32(3), dec.Token)
		// The same step later in the sequence reads its own (LELV) metrics.
		dec, err = smp.Sample(peaked, lowAttn, []int32{7}, NewRNG(1, "p", 0))
		require.NoError(t, err)
		assert.Equal(t, StrategyArgmax, dec.Strategy)
		assert.Equal(t, int32(42), dec.Token)
	})
	t.Run("prompt means LELV: the argmax of the last position", func(t *testing.T) {
		p := &metrics.PromptStats{Positions: 4, LogitsEntropy: 0.1, LogitsVarentropy: 0.2, AttnEntropy: 1,
			AttnVarentropy: 0.1, AttnVarentropyDDOF1: 0.1}
		dec, err := smp.SampleFirst(flat, lowAttn, p, NewRNG(1, "p", 0))
		require.NoError(t, err)
		assert.Equal(t, StrategyArgmax, dec.Strategy)
		assert.Equal(t, flat.Candidates[0].ID, dec.Token)
		assert.Greater(t, flat.Entropy, 0.5, "the last position alone would not be LELV")
	})
	t.Run("prompt means adaptive: parameters and confidence from the means", func(t *testing.T) {
		ent, vent, attnEnt, attnVent, agree, inter := 1.0, 4.0, 9.5, 2.0, 1e-6, 0.2
		p := &metrics.PromptStats{Positions: 30, LogitsEntropy: ent, LogitsVarentropy: vent, AttnEntropy: attnEnt,
			AttnVarentropy: 0.5, AttnVarentropyDDOF1: attnVent, Agreement: agree, InteractionStrength: inter}
		dec, err := smp.SampleFirst(flat, lowAttn, p, NewRNG(1, "p", 0))
		require.NoError(t, err)
		assert.Equal(t, StrategyAdaptive, dec.Strategy)
		// temperature = 0.666·(1 + 0.3·ent + 0.2·attn_ent − 0.2·agreement)
		assert.InDelta(t, 0.666*(1+0.3*ent+0.2*attnEnt-0.2*agree), dec.Temperature, 1e-12)
		// top_p = clip(0.9·(1 + 0.1·attn_vent), 0.1, 1) = clip(1.08) = 1
		assert.Equal(t, 1.0, dec.TopP)
		// top_k = round(27·(1 + 0.3·interaction − 0.2·agreement)) = round(28.62) = 29
		assert.Equal(t, 29, dec.TopK)
		// min_p = clip(0.03·(1 − 0.5·vent), 0.01, 0.5) = clip(−0.03) = 0.01
		assert.InDelta(t, 0.01, dec.MinP, 1e-15)
		conf := (1-ent/2.07)*0.1 + (1-attnEnt/8.891)*0.2 + (1-vent/6.08)*0.3 + (1-attnVent/6.82)*0.4 +
			agree/4.8e-6*0.5 + inter/0.244*0.6
		assert.InDelta(t, conf, dec.Confidence, 1e-12)
	})
}

func TestPromptMetricsSelection(t *testing.T) {
	for flag, want := range map[string]bool{
		"entropix:smollm-360m,faithful=true":                          true,
		"entropix:smollm-135m,faithful=true":                          true,
		"entropix:smollm-1.7b,faithful=true":                          true,
		"entropix:smollm-360m":                                        false,
		"entropix:smollm-360m,faithful=true,first_token_metrics=last": false,
		"entropix:smollm-360m,faithful=true,first_token_argmax=true":  false,
		"entropix:original,faithful=true":                             false,
		"entropix:frog,faithful=true,first_token_argmax=false":        false,
		"entropix:frog,first_token_metrics=prompt_mean":               true,
	} {
		e := mustSpec(t, flag).(*Entropix)
		assert.Equal(t, want, e.PromptMetrics(), flag)
		m := "last"
		if want {
			m = "prompt_mean"
		}
		assert.Equal(t, m, e.Describe()["first_token_metrics"], flag)
	}
	_, err := ParseFlag("entropix:smollm-360m,first_token_metrics=first")
	require.ErrorContains(t, err, "field first_token_metrics")
	_, err = ParseFlag("entropix:original,faithful=true,first_token_metrics=prompt_mean")
	require.ErrorContains(t, err, "no effect while first_token_argmax is on")
}

func TestPromptMetricsErrors(t *testing.T) {
	smp := mustSpec(t, "entropix:smollm-360m,faithful=true")
	d := fullDist(testLogits(3000, 4), 0)
	a := &metrics.AttnStats{Entropy: 1}
	_, err := smp.Sample(d, a, nil, NewRNG(1, "e", 0))
	require.ErrorContains(t, err, "pass them with SampleFirst")
	_, err = smp.(*Entropix).SampleFirst(d, a, nil, NewRNG(1, "e", 0))
	require.ErrorContains(t, err, "the engine computed none")
	_, err = smp.(*Entropix).SampleFirst(d, a, &metrics.PromptStats{}, NewRNG(1, "e", 0))
	require.ErrorContains(t, err, "the engine computed none")
	bad := &metrics.PromptStats{Positions: 3, LogitsEntropy: 1, LogitsVarentropy: math.NaN()}
	_, err = smp.(*Entropix).SampleFirst(d, a, bad, NewRNG(1, "e", 0))
	require.ErrorContains(t, err, "logits varentropy is NaN")

	// A sampler that does not read them ignores them: SampleFirst is Sample.
	fixed := mustSpec(t, "entropix:smollm-360m").(*Entropix)
	got, err := fixed.SampleFirst(d, a, &metrics.PromptStats{Positions: 3, LogitsEntropy: 9}, NewRNG(1, "e", 0))
	require.NoError(t, err)
	want, err := fixed.Sample(d, a, nil, NewRNG(1, "e", 0))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
