package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uppercase is str.upper(): ß becomes "SS", as in Python.
func TestUppercase(t *testing.T) {
	got, err := runFilter(t, "uppercase", nil, values("straße"), nil)
	require.NoError(t, err)
	assert.Equal(t, values("STRASSE"), got)
}
