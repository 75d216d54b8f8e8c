package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLargest(t *testing.T) {
	require.Equal(t, 0, Largest(10, func(int) bool { return false }))
	require.Equal(t, 10, Largest(10, func(int) bool { return true }))
	require.Equal(t, 7, Largest(10, func(n int) bool { return n <= 7 }))
}
