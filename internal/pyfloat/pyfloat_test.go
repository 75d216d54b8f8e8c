package pyfloat

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The wants are what CPython 3 prints for repr(x).
func TestRepr(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{2, "2.0"},
		{-3, "-3.0"},
		{0.02, "0.02"},
		{0.30000000000000004, "0.30000000000000004"}, // 0.1 + 0.2 at run time
		{1e-4, "0.0001"},
		{1e-5, "1e-05"},
		{-1.25e-7, "-1.25e-07"},
		{1e6, "1000000.0"},
		{10000, "10000.0"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{1e300, "1e+300"},
		{123.456, "123.456"},
	} {
		assert.Equal(t, tc.want, Repr(tc.in), "%v", tc.in)
	}
}
