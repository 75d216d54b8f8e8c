package runreport

import (
	"math"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Five correct responses of four tokens (entropy 0.5; argmax ×3 with attention
// entropy 1.5, adaptive) and five wrong ones (entropy 1, 2, 3, 4; adaptive ×4
// with agreement 0.25).
func entropixCase() ([]reports.ResultRow, []reports.TraceRow) {
	results := scored("entropix", 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0)
	var traces []reports.TraceRow
	for p := range 10 {
		for step := range 4 {
			tr := reports.TraceRow{RunID: results[p].RunID, Task: "gsm8k", ProblemID: int32(p), Step: int32(step)}
			tr.Text, tr.Strategy = "t", "adaptive"
			nan := math.NaN() // not computed, unless set below
			tr.AttnEntropy, tr.AttnVarentropy, tr.Agreement, tr.InteractionStrength = nan, nan, nan, nan
			if p < 5 {
				tr.Entropy, tr.Varentropy = 0.5, 0.5
				if step < 3 {
					tr.Strategy = "argmax"
					tr.AttnEntropy = 1.5
				}
			} else {
				tr.Entropy, tr.Varentropy = float64(step+1), float64(step+1)
				tr.Agreement = 0.25
			}
			traces = append(traces, tr)
		}
	}
	return results, traces
}

func TestTraceSections(t *testing.T) {
	results, traces := entropixCase()
	m := taskManifest("gsm8k", "entropix")
	m["samplers"] = []map[string]any{{"label": "entropix", "spec": map[string]any{"name": "entropix"},
		"description": map[string]any{"name": "entropix", "low_logits_entropy": 0.1, "high_logits_entropy": 5.0, "medium_logits_varentropy": 5.0}}}
	dir := writeRun(t, m, results, traces)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	require.True(t, rep.HasTraces)

	require.Len(t, rep.Strategies, 1)
	st := rep.Strategies[0]
	assert.Equal(t, int64(40), st.Tokens)
	require.Len(t, st.Shares, 2)
	assert.Equal(t, [2]any{"adaptive", int64(25)}, [2]any{st.Shares[0].Strategy, st.Shares[0].Tokens})
	assert.Equal(t, [2]any{"argmax", int64(15)}, [2]any{st.Shares[1].Strategy, st.Shares[1].Tokens})
	assert.InDelta(t, 0.625, st.Shares[0].Share, 1e-15)
	// Adaptive decided 5 tokens at entropy 0.5 and 5 each at 1, 2, 3, 4:
	// mean (2.5 + 50)/25 = 2.1 (varentropy the same); no attention entropy;
	// agreement 0.25 on the 20 that had it. Argmax: 0.5, 0.5, attention 1.5.
	nan := math.NaN()
	for i, want := range [][6]float64{{2.1, 2.1, nan, nan, 0.25, nan}, {0.5, 0.5, 1.5, nan, nan, nan}} {
		for m, w := range want {
			assertCloseOrNaN(t, w, st.Shares[i].Means[m], "%s %s", st.Shares[i].Strategy, model.TokenMetrics[m])
		}
	}
	assert.Equal(t, []model.FrequencyBin{
		{Strategy: "adaptive", Label: "20–50%", Low: 0.2, High: 0.5, Responses: 5, Accuracy: 1},
		{Strategy: "adaptive", Label: "> 50%", Low: 0.5, High: 1, Responses: 5, Accuracy: 0},
		{Strategy: "argmax", Label: "never", Responses: 5, Accuracy: 0},
		{Strategy: "argmax", Label: "> 50%", Low: 0.5, High: 1, Responses: 5, Accuracy: 1},
	}, st.ByFrequency)

	require.Len(t, rep.Curves, 1)
	c := rep.Curves[0]
	require.Len(t, c.Correct, 4)
	require.Len(t, c.Wrong, 4)
	for step := range 4 {
		assert.Equal(t, model.CurvePoint{Step: step, Mean: 0.5, N: 5}, c.Correct[step])
		assert.Equal(t, model.CurvePoint{Step: step, Mean: float64(step + 1), N: 5}, c.Wrong[step])
	}

	require.Len(t, rep.Density, 1)
	d := rep.Density[0]
	assert.Equal(t, int64(40), d.Tokens)
	var sum uint32
	for _, n := range d.Counts {
		sum += n
	}
	assert.Equal(t, uint32(40), sum)
	assert.Zero(t, d.Clipped)
	assert.GreaterOrEqual(t, d.EntropyMax, 5.0, "the high threshold stays in view")
	assert.GreaterOrEqual(t, d.VarentMax, 5.0)
	require.NotNil(t, d.Thresholds)
	assert.Equal(t, []model.Level{{Name: "low", Value: 0.1}, {Name: "high", Value: 5}}, d.Thresholds.Entropy)

	// Every response fits the default token budget: all carry their tokens.
	assert.Empty(t, rep.TokenNote)
	tok := rep.Problems[9].Responses[0].Tokens
	require.NotNil(t, tok)
	assert.Equal(t, []float64{1, 2, 3, 4}, tok.Entropy)
}

func TestTokenBudget(t *testing.T) {
	results, traces := entropixCase()
	dir := writeRun(t, nil, results, traces)
	for _, tc := range []struct {
		budget   int
		detailed int
	}{{-1, 0}, {4, 1}, {7, 1}, {8, 2}, {1000, 10}} {
		rep, err := Compute(dir, Options{TokenBudget: tc.budget})
		require.NoError(t, err)
		n := 0
		for _, p := range rep.Problems {
			if p.Responses[0].Tokens != nil {
				n++
			}
		}
		assert.Equal(t, tc.detailed, n, "budget %d", tc.budget)
		if tc.detailed < 10 {
			assert.Contains(t, rep.TokenNote, "first")
		}
	}
}

func TestHistogramCrop(t *testing.T) {
	h := newHistogram()
	for i := range 1000 {
		h.add(float64(i%10)/10, float64(i%7)/7) // entropy < 1, varentropy < 1
	}
	h.add(19.9, 79)    // one outlier far out
	h.add(-1e-17, 200) // rounding below 0 is not clipping; 200 is
	d := h.density("s", nil)
	assert.Less(t, d.EntropyMax, 2.0, "the outlier does not stretch the axes")
	assert.Less(t, d.VarentMax, 2.0)
	assert.Equal(t, int64(1002), d.Tokens)
	assert.Equal(t, int64(2), d.Clipped)
	var sum uint32
	for _, n := range d.Counts {
		sum += n
	}
	assert.Equal(t, uint32(1002), sum, "clipped tokens stay in the edge cells")
}

func TestEntropixRecognisedFromTraces(t *testing.T) {
	results, traces := entropixCase()
	dir := writeRun(t, nil, results, traces) // no manifest
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	require.Len(t, rep.Samplers, 1)
	assert.True(t, rep.Samplers[0].Entropix)
	assert.Len(t, rep.Strategies, 1)
	assert.Nil(t, rep.Density[0].Thresholds, "thresholds come from the manifest only")
}

func assertCloseOrNaN(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), append([]any{msg + ": want NaN, got %v"}, append(args, got)...)...)
		return
	}
	assert.InDelta(t, want, got, 1e-12, append([]any{msg}, args...)...)
}
