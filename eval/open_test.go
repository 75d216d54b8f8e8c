package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A limit fraction keeps the first ceil(N × fraction) problems, as lm-eval's
// --limit 0.1 does, and becomes the config's limit so the manifest records it.
func TestSizingLimitFraction(t *testing.T) {
	in := TaskInputs{Problems: make([]Problem, 1319)}
	got, limit := Sizing{LimitFraction: 0.1}.applyLimit(in, 0)
	assert.Equal(t, 132, limit, "ceil(1319 × 0.1), as lm-eval")
	assert.Len(t, got.Problems, 132)

	got, limit = Sizing{}.applyLimit(in, 7)
	assert.Equal(t, 7, limit, "no fraction: the config's limit stands")
	assert.Len(t, got.Problems, 1319)
}
