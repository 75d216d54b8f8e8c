package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// take_first keeps the first response as the doc's one answer (TakeFirstFilter).
func TestTakeFirst(t *testing.T) {
	got, err := runFilter(t, "take_first", nil, values("a", "b"), nil)
	require.NoError(t, err)
	assert.Equal(t, Values{Items: []string{"a"}, Single: true}, got)
	_, err = runFilter(t, "take_first", nil, values(), nil)
	assert.ErrorContains(t, err, "no responses")
}
