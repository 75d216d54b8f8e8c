package datasets

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Jinja prints a doc's non-finite floats as Python's str does (nan, inf,
// -inf), inside lists too, and templates still compare them as numbers.
func TestTemplateNonFiniteFloats(t *testing.T) {
	d := Doc{"n": math.NaN(), "p": math.Inf(1), "m": math.Inf(-1), "l": []any{math.Inf(1), 0.5}, "s": map[string]any{"v": math.NaN()}}
	got, err := NewTemplate("doc_to_text", "{{n}} {{p}} {{m}} {{l}} {{s.v}} {% if p > 1e308 %}big{% endif %}").RenderString(d)
	assert.NoError(t, err)
	assert.Equal(t, "nan inf -inf [inf, 0.5] nan big", got)
	assert.True(t, math.IsNaN(d["n"].(float64)), "the doc keeps its float64 values")
}
