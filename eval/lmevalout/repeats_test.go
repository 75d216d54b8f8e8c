package lmevalout

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

func TestDocResultsMeanAndStderrOverDocs(t *testing.T) {
	line := func(v float64) *pyjson.Dict {
		return pyjson.NewDict("filter", "strict", "metrics", []string{"exact_match"}, "exact_match", v)
	}
	// 1, 0, 1: mean 2/3; sample sd √(1/3), over √3 gives 1/3.
	got := docResults([]*pyjson.Dict{line(1), line(0), line(1)})
	assert.InDelta(t, 2.0/3, got["exact_match,strict"], 1e-15)
	assert.InDelta(t, 1.0/3, got["exact_match_stderr,strict"], 1e-15)
	assert.Equal(t, "N/A", docResults([]*pyjson.Dict{line(1)})["exact_match_stderr,strict"])

	// Each (metric, filter) on its own, under lm-eval's key names: 0, 0, 0, 1
	// under "flex": mean 1/4, sd √(1/4), over √4 gives 1/4.
	flex := func(v float64) *pyjson.Dict {
		return pyjson.NewDict("filter", "flex", "metrics", []string{"exact_match"}, "exact_match", v)
	}
	got = docResults([]*pyjson.Dict{line(1), flex(0), line(0), flex(0), flex(0), flex(1)})
	assert.Len(t, got, 4)
	assert.InDelta(t, 0.5, got["exact_match,strict"], 1e-15)
	assert.InDelta(t, 0.5, got["exact_match_stderr,strict"], 1e-15)
	assert.InDelta(t, 0.25, got["exact_match,flex"], 1e-15)
	assert.InDelta(t, 0.25, got["exact_match_stderr,flex"], 1e-15)
}

func TestDocLinesAndAnswers(t *testing.T) {
	rep := func(doc, r float64, resp, ans string, em float64) map[string]any {
		return map[string]any{"doc_id": doc, "repeat": r, "resps": []any{[]any{resp}},
			"filtered_resps": map[string]any{"maj": ans}, "exact_match,maj": em}
	}
	groups := docLines([]map[string]any{rep(0, 1, "b", "4", 1), rep(1, 0, "c", "5", 0), rep(0, 0, "a", "4", 1)})
	require.Len(t, groups, 2)
	assert.Equal(t, []string{"a", "b"}, responses(groups[0]))
	ans, vals, err := docAnswer(groups[0], "maj", []string{"exact_match"})
	require.NoError(t, err)
	assert.Equal(t, "4", ans)
	assert.Equal(t, map[string]any{"exact_match": 1.0}, vals)
	_, _, err = docAnswer([]map[string]any{rep(0, 0, "a", "4", 1), rep(0, 1, "b", "7", 0)}, "maj", []string{"exact_match"})
	assert.ErrorIs(t, err, ErrNotWritten)
}
