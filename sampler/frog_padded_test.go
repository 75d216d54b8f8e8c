package sampler

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// naivePadded is calculate_metrics of the JAX original written out over an explicit
// cache of pad slots (real scores first, the rest 0): softmax over all of them,
// entropy with the 1e-10 clip, population variance across heads, agreement and
// interaction strength as means over heads × slots. O(heads·pad), no closed forms:
// the independent reference for metrics.AttnStats in padded mode.
func naivePadded(scores []float32, heads, kvLen, pad int) (ent, vent, agree, inter float64) {
	probs := make([][]float64, heads)
	hs := make([]float64, heads)
	for h := range heads {
		row := make([]float64, pad)
		for j := range kvLen {
			row[j] = float64(scores[h*kvLen+j])
		}
		m := math.Inf(-1)
		for _, s := range row {
			m = math.Max(m, s)
			inter += math.Abs(s)
		}
		var z float64
		p := make([]float64, pad)
		for j, s := range row {
			p[j] = math.Exp(s - m)
			z += p[j]
		}
		for j := range p {
			p[j] /= z
			hs[h] -= p[j] * math.Log2(math.Max(p[j], 1e-10))
		}
		probs[h] = p
	}
	for _, x := range hs {
		ent += x
	}
	ent /= float64(heads)
	for _, x := range hs {
		vent += (x - ent) * (x - ent)
	}
	vent /= float64(heads)
	for j := range pad {
		var mean float64
		for h := range heads {
			mean += probs[h][j]
		}
		mean /= float64(heads)
		for h := range heads {
			agree += math.Abs(probs[h][j] - mean)
		}
	}
	cells := float64(heads * pad)
	return ent, vent, agree / cells, inter / cells
}

// attnFixture builds metric-layer scores: every head scores neg real keys at negScore
// (attention mass moves to the empty slots' side, |score| feeds interaction
// strength); peakHeads heads each add one real key scoring peak (the others score
// it 0, like an empty slot); focus keys score focusScore in every head.
type attnFixture struct {
	heads, neg int
	negScore   float32
	peakHeads  int
	peak       float32
	focus      int
	focusScore float32
}

func (f attnFixture) scores() ([]float32, int) {
	kvLen := f.neg + f.peakHeads + f.focus
	s := make([]float32, f.heads*kvLen)
	for h := range f.heads {
		row := s[h*kvLen : (h+1)*kvLen]
		for j := range f.neg {
			row[j] = f.negScore
		}
		if h < f.peakHeads {
			row[f.neg+h] = f.peak
		}
		for j := range f.focus {
			row[f.neg+f.peakHeads+j] = f.focusScore
		}
	}
	return s, kvLen
}

// frog (8084588) on its upstream's statistics — padded over the 4096-slot cache —
// reaches each of its non-adaptive branches; the fixtures put every attention
// statistic on both sides of its thresholds (entropy 11.915/11.926 bits, varentropy
// 0.001/0.009, agreement 2e-6/5e-6, interaction 0.2/0.264). On masked statistics
// the same scores never leave the adaptive branch (entropy ≤ log2(real keys) and
// agreement far above 2e-6), which is why frog's default view is padded.
func TestFrogReachesItsBranchesOnPaddedStatistics(t *testing.T) {
	focused := attnFixture{heads: 4, focus: 8, focusScore: 3}
	forks := attnFixture{heads: 128, neg: 240, negScore: -10, peakHeads: 1, peak: 7}
	mist := attnFixture{heads: 16, neg: 40, negScore: -40, peakHeads: 1, peak: 6.25}
	type want struct{ entLow, entHigh, ventLow, ventHigh, agreeLow, agreeHigh, interLow, interHigh bool }
	for _, tc := range []struct {
		name   string
		f      attnFixture
		ent    float64 // logits entropy and varentropy (bits, bits²)
		vent   float64
		branch Strategy
		want   want
	}{
		{"lelv", focused, 0.005, 0.01, StrategyArgmax, want{entLow: true, ventLow: true, agreeLow: true, interLow: true}},
		{"helv", focused, 3.0, 0.01, StrategyInsertClarifying, want{entLow: true, ventLow: true, agreeLow: true, interLow: true}},
		{"lehv", forks, 1.0, 6.5, StrategyLEHV, want{entLow: true, ventHigh: true, agreeLow: true, interHigh: true}},
		{"hehv", mist, 3.0, 6.5, StrategyHEHV, want{entHigh: true, ventHigh: true, agreeHigh: true, interHigh: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scores, kvLen := tc.f.scores()
			var a metrics.AttnStats
			require.NoError(t, a.Compute(scores, tc.f.heads, kvLen, metrics.Padded, 4096))
			ent, vent, agree, inter := naivePadded(scores, tc.f.heads, kvLen, 4096)
			require.InDelta(t, ent, a.Entropy, 1e-9)
			require.InDelta(t, vent, a.Varentropy, 1e-9)
			require.InDelta(t, agree, a.Agreement, 1e-14)
			require.InDelta(t, inter, a.InteractionStrength, 1e-12)

			// Which side of each threshold the statistics sit on.
			c, _ := EntropixPreset("frog")
			w := tc.want
			assert.Equal(t, w.entLow, ent < c.AttnEntropy.Low, "attn entropy %v vs %v", ent, c.AttnEntropy.Low)
			assert.Equal(t, w.entHigh, ent > c.AttnEntropy.High, "attn entropy %v vs %v", ent, c.AttnEntropy.High)
			assert.Equal(t, w.ventLow, vent < c.AttnVarentropy.Low, "attn varentropy %v", vent)
			assert.Equal(t, w.ventHigh, vent > c.AttnVarentropy.High, "attn varentropy %v", vent)
			assert.Equal(t, w.agreeLow, agree < c.Agreement.Low, "agreement %v", agree)
			assert.Equal(t, w.agreeHigh, agree > c.Agreement.High, "agreement %v", agree)
			assert.Equal(t, w.interLow, inter < c.InteractionStrength.Low, "interaction %v", inter)
			assert.Equal(t, w.interHigh, inter > c.InteractionStrength.High, "interaction %v", inter)

			d := fullDist(testLogits(500, 3), 0)
			d.Entropy, d.Varentropy = tc.ent, tc.vent
			for _, flag := range []string{"entropix:frog", "entropix:frog,faithful=true,first_token_argmax=false"} {
				dec, err := mustSpec(t, flag).Sample(d, &a, nil, NewRNG(0, tc.name, 0))
				require.NoError(t, err)
				assert.Equal(t, tc.branch, dec.Strategy, flag)
			}
			var m metrics.AttnStats
			require.NoError(t, m.Compute(scores, tc.f.heads, kvLen, metrics.Masked, 0))
			dec, err := mustSpec(t, "entropix:frog,attn_mode=masked").Sample(d, &m, nil, NewRNG(0, tc.name, 0))
			require.NoError(t, err)
			assert.Equal(t, StrategyAdaptive, dec.Strategy, "masked statistics: entropy %v agreement %v", m.Entropy, m.Agreement)
		})
	}
}
