package sampler

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// TestFillAtTemperatureOneMatchesMathExp holds fill's block path (temperature 1,
// metrics.ExpShifted) to the definition, math.Exp(l_i − l_0) per candidate, on
// sorted logits that fall from 0 past exp's underflow (about −745) to −Inf,
// asked for one weight at a time as min-p asks and in one call as top-p sums.
func TestFillAtTemperatureOneMatchesMathExp(t *testing.T) {
	const n = 3000
	d := &metrics.Dist{}
	for i := range n {
		l := float32(3.5 - float64(i)*0.27 - float64(i%7)*1e-3)
		if i >= n-5 {
			l = float32(math.Inf(-1))
		}
		d.Candidates = append(d.Candidates, metrics.Candidate{ID: int32(i), Logit: l})
	}
	l0 := float64(d.Candidates[0].Logit)
	firstZero := -1
	for i, c := range d.Candidates {
		if math.Exp(float64(c.Logit)-l0) == 0 {
			firstZero = i
			break
		}
	}
	require.Greater(t, firstZero, 2000, "the logits must reach exp's underflow")
	for _, oneByOne := range []bool{true, false} {
		var tr truncator
		tr.reset(d, 1)
		if !oneByOne {
			require.Equal(t, firstZero, tr.fill(n))
		}
		for i, c := range d.Candidates {
			want := math.Exp(float64(c.Logit) - l0)
			require.Equal(t, math.Float64bits(want), math.Float64bits(tr.weight(i)), "candidate %d (one by one: %v)", i, oneByOne)
		}
		require.Equal(t, firstZero, tr.zeros)
	}
}
