package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// map looks each response up in mapping_dict; a miss gives default_value,
// and without one None, written "".
func TestMap(t *testing.T) {
	got, err := runFilter(t, "map", map[string]any{"mapping_dict": map[string]any{"A": "0", "B": int64(1)}, "default_value": "-1"}, values("A", "B", "C"), nil)
	require.NoError(t, err)
	assert.Equal(t, values("0", "1", "-1"), got)
	got, err = runFilter(t, "map", map[string]any{"mapping_dict": map[string]any{"A": "x"}}, values("Z"), nil)
	require.NoError(t, err)
	assert.Equal(t, values(""), got)
	_, err = NewFilter("map", map[string]any{"mapping_dict": "A"})
	assert.ErrorContains(t, err, "mapping_dict: want a mapping")
}
