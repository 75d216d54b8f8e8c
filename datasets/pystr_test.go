package datasets

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

// Jinja prints a doc's non-finite floats as Python's str does (nan, inf,
// -inf), inside lists too, and templates still compare them as numbers.
func TestTemplateNonFiniteFloats(t *testing.T) {
	d := Doc{"n": math.NaN(), "p": math.Inf(1), "m": math.Inf(-1), "l": []any{math.Inf(1), 0.5}, "s": map[string]any{"v": math.NaN()}}
	got, err := NewTemplate("doc_to_text", "{{n}} {{p}} {{m}} {{l}} {{s.v}} {% if p > 1e308 %}big{% endif %}").RenderString(d)
	assert.NoError(t, err)
	assert.Equal(t, "nan inf -inf [inf, 0.5] nan big", got)
	assert.True(t, math.IsNaN(d["n"].(float64)), "the doc keeps its float64 values")
}
