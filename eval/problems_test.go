package eval

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// A doc's NaN and ±Infinity survive problems.jsonl: written as json.dumps
// writes them, in the doc (the line's last member), read back as floats, and
// the entry read back is the one a resumed run prepares again.
func TestProblemEntryNonFiniteDoc(t *testing.T) {
	e := ProblemEntry{Index: 3, ID: "3", Question: "Q <b>", Prompt: "Q: nan", PromptHash: "h", PromptTokens: 4, Target: "4",
		Doc:        datasets.Doc{"q": "Q <b>", "x": math.NaN(), "y": []any{math.Inf(1), math.Inf(-1)}, "n": int64(2)},
		DocColumns: datasets.FieldsOf("q", "x", "y", "n")}
	line, err := e.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"index":3,"id":"3","question":"Q \u003cb\u003e","prompt":"Q: nan","prompt_hash":"h","prompt_tokens":4,"target":"4",`+
		`"doc_columns":["q","x","y","n"],"doc":{"q":"Q <b>","x":NaN,"y":[Infinity,-Infinity],"n":2}}`, string(line))
	var back ProblemEntry
	require.NoError(t, back.UnmarshalJSON(line))
	assert.True(t, math.IsNaN(back.Doc["x"].(float64)))
	assert.Equal(t, []any{math.Inf(1), math.Inf(-1)}, back.Doc["y"])
	assert.Equal(t, int64(2), back.Doc["n"])
	assert.Equal(t, "Q <b>", back.Question)
	assert.True(t, sameEntry(e, back))
	back.Doc["x"] = 1.0
	assert.False(t, sameEntry(e, back))
}
