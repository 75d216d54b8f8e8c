package metrics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hand-derived: two positions of one head each. Position 0 sees scores (0, 0)
// (uniform: 1 bit, |s| mean 0), position 1 sees (ln 3, 0): p = (3/4, 1/4),
// H = 2 − (3/4)·log2 3 bits, |s| mean (ln 3)/2. One head: both varentropies and the
// agreement are 0 (torch.var's NaN mapped to 0 for ddof 1).
func TestPromptSumsHandDerived(t *testing.T) {
	var a AttnStats
	var rows []PositionAttn
	for _, sc := range [][]float32{{0, 0}, {float32(math.Log(3)), 0}} {
		require.NoError(t, a.Compute(sc, 1, 2, Masked, 0))
		require.True(t, math.IsNaN(a.VarentropyDDOF1))
		rows = append(rows, a.Position())
	}
	var s PromptSums
	s.Add(1, 0.5)
	s.Add(3, 1.5)
	p, err := s.Stats(rows)
	require.NoError(t, err)
	h1 := 2 - 0.75*math.Log2(3)
	require.Equal(t, 2, p.Positions)
	require.InDelta(t, 2.0, p.LogitsEntropy, 1e-15)
	require.InDelta(t, 1.0, p.LogitsVarentropy, 1e-15)
	require.InDelta(t, (1+h1)/2, p.AttnEntropy, 1e-7)
	require.Zero(t, p.AttnVarentropy)
	require.Zero(t, p.AttnVarentropyDDOF1)
	require.Zero(t, p.Agreement)
	require.InDelta(t, math.Log(3)/4, p.InteractionStrength, 1e-7)

	_, err = s.Stats(rows[:1])
	require.ErrorContains(t, err, "2 positions of logits and 1 of attention")
	s.Add(math.NaN(), 0)
	rows = append(rows, rows[0])
	_, err = s.Stats(rows)
	require.ErrorContains(t, err, "a mean is NaN")
}
