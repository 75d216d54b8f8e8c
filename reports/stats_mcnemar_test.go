package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMcNemarCountsIsExactAtEverySize(t *testing.T) {
	tests := []struct {
		name string
		b, c int
		p    float64
	}{
		// p = 2·Σ_{k≤min(b,c)} C(b+c, k)/2^(b+c), capped at 1.
		// b=1, c=6: 2·(C(7,0) + C(7,1))/2^7 = 2·8/128 = 0.125.
		{"b=1 c=6", 1, 6, 0.125},
		{"b=6 c=1", 6, 1, 0.125},
		// b=0, c=5: 2·1/32 = 0.0625.
		{"b=0 c=5", 0, 5, 0.0625},
		// b=3, c=3: the two tails overlap: 1.
		{"b=c=3", 3, 3, 1},
		{"none", 0, 0, 1},
		// b=8, c=16: Σ C(24,0..8) = 1+24+276+2024+10626+42504+134596+346104+735471
		// = 1271626; p = 2·1271626/16777216 = 0.151590.
		{"b=8 c=16", 8, 16, 0.15158963203430176},
		// The cases the chi-square approximation used to take (issue 26):
		// b=0, c=34: 2·2^-34 = 1.16415e-10 (χ² with continuity correction
		// gave 1.5e-8).
		{"b=0 c=34", 0, 34, 2 * math.Ldexp(1, -34)},
		// b=15, c=29 (n = 44): 2·Σ_{k≤15} C(44,k)/2^44 = 0.048767 (scipy
		// binomtest(15, 44).pvalue = 0.048766765904474596), below 0.05 where
		// the χ² (|15−29|−1)²/44 = 3.841 gave 0.0500.
		{"b=15 c=29", 15, 29, 0.048766765904474596},
		// scipy binomtest: (10, 30) → 0.09873714670538905, (90, 152) → 0.02819284181764288.
		{"b=10 c=20", 10, 20, 0.09873714670538905},
		{"b=90 c=62", 90, 62, 0.02819284181764288},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := McNemarCounts(tt.b, tt.c)
			require.NoError(t, err)
			assert.Equal(t, McNemarExact, got.Method)
			assert.InEpsilon(t, tt.p, got.P, 1e-12)
		})
	}
	_, err := McNemarCounts(-1, 3)
	assert.Error(t, err)
}

func TestMcNemarCountsDiscordantPairs(t *testing.T) {
	a := []bool{true, true, false, false, true, false}
	b := []bool{true, false, true, false, false, true}
	// A-only right: items 1, 4 → b=2; B-only right: items 2, 5 → c=2.
	got, err := McNemar(a, b)
	require.NoError(t, err)
	assert.Equal(t, 2, got.B)
	assert.Equal(t, 2, got.C)
	_, err = McNemar(a, b[:3])
	assert.Error(t, err)
}
