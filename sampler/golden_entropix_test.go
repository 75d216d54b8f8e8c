package sampler

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Golden tests of the Entropix rules: strategy.json and adaptive_select.json.

type goldenMetrics struct {
	Ent         float64 `json:"ent"`
	Vent        float64 `json:"vent"`
	AttnEnt     float64 `json:"attn_ent"`
	AttnVent    float64 `json:"attn_vent"`
	Agreement   float64 `json:"agreement"`
	Interaction float64 `json:"interaction_strength"`
}

func (m goldenMetrics) step() stepMetrics {
	return stepMetrics{m.Ent, m.Vent, m.AttnEnt, m.AttnVent, m.Agreement, m.Interaction}
}

type strategyCase struct {
	ID     string `json:"id"`
	Config string `json:"config"`
	Label  string `json:"label"`
	Inputs struct {
		goldenMetrics
		InHistory bool `json:"clarifying_in_history"`
		Last      bool `json:"last_token_is_clarifying"`
	} `json:"inputs"`
	Expected struct {
		Strategy    string   `json:"strategy"`
		Token       *int32   `json:"token"`
		Temperature *float64 `json:"temperature"`
		TopK        *int     `json:"top_k"`
		TopP        *float64 `json:"top_p"`
		MinP        *float64 `json:"min_p"`
		NSamples    *int     `json:"n_samples"`
		Confidence  *float64 `json:"confidence_score"`
		Conditions  struct {
			LELV, HELV, LEHV, HEHV bool
		} `json:"conditions"`
	} `json:"expected"`
}

// goldenClarifying are the clarifying token ids the goldens use per config.
var goldenClarifying = map[string]int32{"original": 2564, "frog": 2564, "smollm-360m": 2026}

func faithfulEntropix(t *testing.T, variant string) *Entropix {
	t.Helper()
	cfg, err := EntropixPreset(variant)
	require.NoError(t, err)
	cfg.Faithful = true
	e, err := NewEntropix(cfg, goldenClarifying[variant])
	require.NoError(t, err)
	return e
}

func TestStrategyGolden(t *testing.T) {
	var g struct{ Cases []strategyCase }
	sharedtest.ReadJSON(t, "golden/sampler/strategy.json", &g)
	require.Len(t, g.Cases, 312)
	samplers := map[string]*Entropix{}
	for v := range goldenClarifying {
		samplers[v] = faithfulEntropix(t, v)
	}
	// A small distribution to draw from; the rules read the metrics set below.
	d := &metrics.Dist{Candidates: []metrics.Candidate{{ID: 0, Logit: 2}, {ID: 1, Logit: 1}, {ID: 2, Logit: 0}}, VocabSize: 3000}
	d.LogPartition = math.Log(math.Exp(2) + math.Exp(1) + 1)
	r := NewRNG(1, "strategy", 0)
	for _, c := range g.Cases {
		t.Run(c.ID, func(t *testing.T) {
			e := samplers[c.Config]
			require.NotNil(t, e, "config %s", c.Config)
			dec := sampleStrategyCase(t, e, c, d, r)
			w := c.Expected
			assert.Equal(t, w.Strategy, string(dec.Strategy), c.Label)
			if w.Token != nil {
				assert.Equal(t, *w.Token, dec.Token)
			}
			closeParam := func(name string, want *float64, got float64) {
				if want != nil {
					assert.Truef(t, sharedtest.Close(got, *want, paramRtol, paramAtol), "%s: got %.17g want %.17g", name, got, *want)
				}
			}
			closeParam("temperature", w.Temperature, dec.Temperature)
			closeParam("top_p", w.TopP, dec.TopP)
			closeParam("min_p", w.MinP, dec.MinP)
			closeParam("confidence", w.Confidence, dec.Confidence)
			if w.TopK != nil {
				assert.Equal(t, *w.TopK, dec.TopK, "top_k")
			}
			if w.NSamples != nil {
				assert.Equal(t, *w.NSamples, dec.NSamples, "n_samples")
			}
			p := e.plan(c.Inputs.step(), false)
			assert.Equal(t, [4]bool{w.Conditions.LELV, w.Conditions.HELV, w.Conditions.LEHV, w.Conditions.HEHV}, p.conditions, "conditions")
		})
	}
}

// The fixed mode reads the same rules; only its clarifying check differs (last
// token only), so original and frog insert again where the faithful check saw the
// token earlier in the history.
func TestStrategyGoldenFixedMode(t *testing.T) {
	var g struct{ Cases []strategyCase }
	sharedtest.ReadJSON(t, "golden/sampler/strategy.json", &g)
	d := &metrics.Dist{Candidates: []metrics.Candidate{{ID: 0, Logit: 2}, {ID: 1, Logit: 1}}, VocabSize: 3000}
	d.LogPartition = math.Log(math.Exp(2) + math.Exp(1))
	r := NewRNG(1, "fixed", 0)
	for _, c := range g.Cases {
		cfg, err := EntropixPreset(c.Config)
		require.NoError(t, err)
		e, err := NewEntropix(cfg, goldenClarifying[c.Config])
		require.NoError(t, err)
		in := c.Inputs
		dec := sampleStrategyCase(t, e, c, d, r)
		want := c.Expected.Strategy
		if want == string(StrategyHELV) && !in.Last {
			want = string(StrategyInsertClarifying)
		}
		assert.Equal(t, want, string(dec.Strategy), "%s %s", c.ID, c.Label)
		if c.Expected.TopK != nil && want == c.Expected.Strategy {
			assert.Equal(t, *c.Expected.TopK, dec.TopK, c.ID)
		}
		assert.False(t, dec.Faithful)
	}
}

type adaptiveCase struct {
	ID         string             `json:"id"`
	Config     string             `json:"config"`
	Note       string             `json:"note"`
	Logits     []sharedtest.Float `json:"logits"`
	Candidates []int32            `json:"candidates"`
	Metrics    goldenMetrics      `json:"metrics"`
	Expected   struct {
		Logprobs      []sharedtest.Float `json:"logprobs"`
		Confidence    float64            `json:"confidence_score"`
		Scores        []sharedtest.Float `json:"scores"`
		SelectedIndex int                `json:"selected_index"`
		SelectedToken int32              `json:"selected_token"`
	} `json:"expected"`
	UpstreamQuirk *struct {
		SelectedIndex int `json:"selected_index"`
	} `json:"upstream_quirk"`
}

func TestAdaptiveSelectGolden(t *testing.T) {
	var g struct{ Cases []adaptiveCase }
	sharedtest.ReadJSON(t, "golden/sampler/adaptive_select.json", &g)
	require.Len(t, g.Cases, 42)
	for _, c := range g.Cases {
		t.Run(c.ID, func(t *testing.T) {
			e := faithfulEntropix(t, c.Config)
			_, conf := e.adaptive(c.Metrics.step())
			assert.Truef(t, sharedtest.Close(conf, c.Expected.Confidence, paramRtol, paramAtol), "confidence %.17g want %.17g", conf, c.Expected.Confidence)

			d := fullDist(sharedtest.Float32s(c.Logits), 0)
			picks := make([]int, len(c.Candidates))
			for i, id := range c.Candidates {
				picks[i] = slices.IndexFunc(d.Candidates, func(x metrics.Candidate) bool { return x.ID == id })
				lp := d.LogProb(d.Candidates[picks[i]].Logit)
				want := float64(c.Expected.Logprobs[i])
				assert.Truef(t, sharedtest.Close(lp, want, probRtol, probAtol) || lp == want, "logprob %d: %v want %v", i, lp, want)
				score := lp + conf
				wantScore := float64(c.Expected.Scores[i])
				assert.Truef(t, sharedtest.Close(score, wantScore, probRtol, probAtol) || score == wantScore, "score %d: %v want %v", i, score, wantScore)
			}
			got := selectBest(d, picks, false)
			assert.Equal(t, c.Expected.SelectedIndex, got, c.Note)
			assert.Equal(t, c.Expected.SelectedToken, d.Candidates[picks[got]].ID)
			wantFaithful := c.Expected.SelectedIndex
			if c.UpstreamQuirk != nil {
				wantFaithful = c.UpstreamQuirk.SelectedIndex
			}
			assert.Equal(t, wantFaithful, selectBest(d, picks, true), "faithful (upstream NaN) pick")
		})
	}
}

// sampleStrategyCase runs e on one strategy.json case: d carries the case's logits
// metrics, the attention metrics are set from it, and the history holds the
// clarifying token where the case says it occurred.
func sampleStrategyCase(t *testing.T, e *Entropix, c strategyCase, d *metrics.Dist, r *RNG) Decision {
	t.Helper()
	in := c.Inputs
	d.Entropy, d.Varentropy = in.Ent, in.Vent
	a := &metrics.AttnStats{Entropy: in.AttnEnt, Varentropy: in.AttnVent, VarentropyDDOF1: in.AttnVent,
		Agreement: in.Agreement, InteractionStrength: in.Interaction}
	history := []int32{7}
	switch {
	case in.Last:
		history = []int32{7, e.clarifyID}
	case in.InHistory:
		history = []int32{e.clarifyID, 7}
	}
	dec, err := e.Sample(d, a, history, r)
	require.NoError(t, err)
	return dec
}
