package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// take_first_k keeps the first k responses and asserts there are k (TakeKFilter).
func TestTakeFirstK(t *testing.T) {
	got, err := runFilter(t, "take_first_k", map[string]any{"k": int64(2)}, values("a", "b", "c"), nil)
	require.NoError(t, err)
	assert.Equal(t, values("a", "b"), got)
	_, err = runFilter(t, "take_first_k", map[string]any{"k": 8.0}, values("a"), nil)
	assert.ErrorContains(t, err, "need at least 8 responses per doc, have 1")
	_, err = NewFilter("take_first_k", nil)
	assert.ErrorContains(t, err, "k: want a positive integer")
}
