package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMeanAggregation(t *testing.T) {
	a, ok := LookupAggregation("mean")
	require.True(t, ok)
	assert.Equal(t, 0.25, a.Fold([]float64{0, 1, 0, 0}))
}
