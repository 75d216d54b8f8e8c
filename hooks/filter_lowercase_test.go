package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lowercase is str.lower(): U+0130 becomes "i" + U+0307, as in Python.
func TestLowercase(t *testing.T) {
	got, err := runFilter(t, "lowercase", nil, values("ABC İ"), nil)
	require.NoError(t, err)
	assert.Equal(t, values("abc i\u0307"), got)
}
