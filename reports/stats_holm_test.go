package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolm(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// Sorted: 0.005 (×4 = 0.02), 0.01 (×3 = 0.03), 0.03 (×2 = 0.06), 0.04 (×1 = 0.04
		// → running max 0.06). Back in input order: 0.03, 0.06, 0.06, 0.02.
		{"step-down and monotone", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.5·2 = 1.0 (cap), then max(1.0, 0.6) = 1.
		{"capped at 1", []float64{0.5, 0.6}, []float64{1, 1}},
		// Ties: both get 2·0.02 = 0.04.
		{"ties", []float64{0.02, 0.02}, []float64{0.04, 0.04}},
		{"single test unchanged", []float64{0.037}, []float64{0.037}},
		{"empty", nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Holm(tt.p)
			require.NoError(t, err)
			assert.InDeltaSlice(t, tt.want, got, 1e-12)
		})
	}
	_, err := Holm([]float64{0.1, math.NaN()})
	assert.Error(t, err)
	_, err = Holm([]float64{1.2})
	assert.Error(t, err)
}
