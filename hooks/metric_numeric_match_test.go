package hooks

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numeric_match through the registry: the same number, however written.
func TestNumericMatchMetric(t *testing.T) {
	m, ok := LookupMetric("numeric_match")
	require.True(t, ok)
	f, err := m.New(MetricOptions{})
	require.NoError(t, err)
	for _, tt := range []struct {
		pred, ref string
		want      float64
	}{{"$1,000.00", "1000", 1}, {"[invalid]", "1000", 0}} {
		got, err := f(tt.pred, tt.ref)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%q vs %q", tt.pred, tt.ref)
	}
}

func TestNumericMatch(t *testing.T) {
	tests := []struct {
		pred, ref string
		want      bool
	}{
		{"29.00", "29", true},
		{"29", "29.00", true},
		{"$1,000", "1000", true},
		{"1000.", "1000", true},
		{"-0", "0", true},
		{"0.5", ".5", true},
		{"18", janetAnswer, true},
		{"-3", "#### -3", true},
		{"18.50", "18.5", true},
		{"0.1", "0.10000000000000001", false}, // exact decimals, not float64
		{"[invalid]", "18", false},
		{"1.2.3", "1.2", false},
		{"", "0", false},
		{"abc", "abc", false},
		{"18", "19", false},
		{"1e3", "1000", false},
		{"12/2", "6", false},
		{"-", "0", false},
		{".", "0", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, NumericMatch(tt.pred, tt.ref), "%q vs %q", tt.pred, tt.ref)
	}
}

func TestParseDecimal(t *testing.T) {
	r, ok := ParseDecimal("$2,125.50")
	require.True(t, ok)
	assert.Equal(t, 0, r.Cmp(big.NewRat(4251, 2)))
	_, ok = ParseDecimal("2,125 apples")
	assert.False(t, ok)
}
