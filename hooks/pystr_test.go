package hooks

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// PyStr is Python's str() of a doc value as Jinja prints it; the wants are
// what CPython 3 prints.
func TestPyStrFloats(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{2.0, "2.0"},
		{1e6, "1000000.0"},
		{1e16, "1e+16"},
		{1e-5, "1e-05"},
		{0.25, "0.25"},
		{math.NaN(), "nan"},
		{math.Inf(-1), "-inf"},
		{[]any{1.5, int64(2)}, "[1.5, 2]"},
	} {
		assert.Equal(t, tc.want, PyStr(tc.in), "%v", tc.in)
	}
}
