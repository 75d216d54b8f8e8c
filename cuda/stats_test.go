package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// finishDist on the device's pieces (stats + top-K) must equal FillDist on the full row.
func TestFinishDistMatchesFillDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	logits := make([]float32, 1000)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 3)
	}
	for _, k := range []int{1, 27, 999, 1000} {
		var want metrics.Dist
		metrics.FillDist(&want, logits, k)
		logZ, h, v := metrics.LogitStats(logits)
		top := metrics.TopK(nil, logits, k)
		vals, ids := make([]float32, len(top)), make([]int32, len(top))
		for i, c := range top {
			vals[i], ids[i] = c.Logit, c.ID
		}
		var got metrics.Dist
		setCandidates(&got, vals, ids)
		finishDist(&got, len(logits), logZ, h, v)
		require.Equal(t, want, got, "k=%d", k)
	}
}

func TestFinishAttnStatsReusesBuffers(t *testing.T) {
	var a metrics.AttnStats
	finishAttnStats(&a, []float64{1, 3, 0.5, 0.25}, 2, 7, metrics.AttnView{Mode: metrics.Padded, PadLen: 10})
	require.Equal(t, []float64{1, 3}, a.HeadEntropy)
	require.Equal(t, 2.0, a.Entropy)
	require.Equal(t, 1.0, a.Varentropy)
	require.Equal(t, 2.0, a.VarentropyDDOF1)
	require.Equal(t, 0.5, a.Agreement)
	require.Equal(t, 0.25, a.InteractionStrength)
	require.Equal(t, 10, a.Slots)
	require.Equal(t, metrics.AttnView{Mode: metrics.Padded, PadLen: 10}, a.View)
	p := &a.HeadEntropy[0]
	finishAttnStats(&a, []float64{4, 0, 0}, 1, 3, metrics.AttnView{})
	require.Same(t, p, &a.HeadEntropy[0])
	require.True(t, math.IsNaN(a.VarentropyDDOF1))
	require.Equal(t, 3, a.Slots)
	require.Equal(t, metrics.AttnView{}, a.View)
}
