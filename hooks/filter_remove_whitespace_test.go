package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// remove_whitespace is Python's str.strip(): Unicode whitespace and the
// separators \x1c-\x1f, which Go's unicode.IsSpace does not count.
func TestRemoveWhitespace(t *testing.T) {
	got, err := runFilter(t, "remove_whitespace", nil, values(" \x1f B\n", "\u3000c\u00a0"), nil)
	require.NoError(t, err)
	assert.Equal(t, values("B", "c"), got)
}
