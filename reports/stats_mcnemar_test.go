package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMcNemarCounts(t *testing.T) {
	tests := []struct {
		name   string
		b, c   int
		method string
		stat   float64
		p      float64
	}{
		// Exact: p = 2·Σ_{k≤min(b,c)} C(b+c, k)/2^(b+c).
		// b=1, c=6: 2·(C(7,0) + C(7,1))/2^7 = 2·8/128 = 0.125.
		{"b=1 c=6", 1, 6, McNemarExact, 1, 0.125},
		// Symmetric in b and c.
		{"b=6 c=1", 6, 1, McNemarExact, 1, 0.125},
		// b=0, c=5: 2·1/32 = 0.0625.
		{"b=0 c=5", 0, 5, McNemarExact, 0, 0.0625},
		// b=3, c=3: 2·(1+6+15+20)/64 = 1.3125, capped at 1.
		{"b=c=3", 3, 3, McNemarExact, 3, 1},
		// No discordant pairs: no evidence either way.
		{"none", 0, 0, McNemarExact, 0, 1},
		// b=8, c=16 (n=24, still exact): Σ C(24,0..8) = 1+24+276+2024+10626+42504
		// +134596+346104+735471 = 1271626; p = 2·1271626/16777216 = 0.151590.
		{"b=8 c=16", 8, 16, McNemarExact, 8, 0.151590},
		// Chi-square from n = 25 on. b=10, c=20: (|10−20|−1)²/30 = 81/30 = 2.7;
		// p = P(χ²₁ > 2.7) = 2(1 − Φ(√2.7 = 1.643168)) = 2(1 − 0.949826) = 0.100348.
		{"b=10 c=20", 10, 20, McNemarChi2CC, 2.7, 0.100348},
		// b=12, c=13: |b−c|−1 = 0 → statistic 0, p = 1.
		{"b=12 c=13", 12, 13, McNemarChi2CC, 0, 1},
		// b=90, c=62: 27²/152 = 4.796053; p = 2(1 − Φ(2.189989)) = 0.028525.
		{"b=90 c=62", 90, 62, McNemarChi2CC, 4.796053, 0.028525},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := McNemarCounts(tt.b, tt.c)
			require.NoError(t, err)
			assert.Equal(t, tt.method, got.Method)
			assert.InDelta(t, tt.stat, got.Stat, 1e-6)
			assert.InDelta(t, tt.p, got.P, 1e-6)
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
