package tokenizer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A character-level tokenizer (no merges) whose added tokens exercise the
// lstrip, rstrip, single_word and normalized flags. Expected ids follow the
// Rust AddedVocabulary rules: lstrip/rstrip swallow the neighbouring whitespace,
// single_word only matches between non-word characters, and normalized tokens
// are matched in normalized (here lowercased) text.
const flagsTokenizerJSON = `{
  "added_tokens": [
    {"id": 10, "content": "<l>", "lstrip": true, "special": true},
    {"id": 11, "content": "<r>", "rstrip": true, "special": true},
    {"id": 12, "content": "ab", "single_word": true, "special": false},
    {"id": 13, "content": "C", "normalized": true, "special": false},
    {"id": 14, "content": "<l>>", "special": true}
  ],
  "normalizer": {"type": "Lowercase"},
  "pre_tokenizer": null,
  "post_processor": null,
  "decoder": null,
  "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "x": 3, " ": 4, "<": 5, ">": 6}, "merges": []}
}`

func TestAddedTokenFlags(t *testing.T) {
	tok, err := Parse([]byte(flagsTokenizerJSON))
	require.NoError(t, err)
	cases := []struct {
		text string
		want []int32
	}{
		{"a  <l>b", []int32{0, 10, 1}},      // lstrip takes both spaces
		{"<l>b", []int32{10, 1}},            // nothing to strip
		{"a<r>  b", []int32{0, 11, 1}},      // rstrip takes both spaces
		{"a <r> b", []int32{0, 4, 11, 1}},   // rstrip only strips to the right
		{"x ab x", []int32{3, 4, 12, 4, 3}}, // single word
		{"xab", []int32{3, 0, 1}},           // inside a word: not matched
		{"ab", []int32{12}},                 // whole text
		{"aCx", []int32{0, 13, 3}},          // matched after lowercasing
		{"acx", []int32{0, 13, 3}},          // normalized form matches too
		{"<l>>a", []int32{14, 0}},           // the longest token wins
		{"A B", []int32{0, 4, 1}},           // plain text is lowercased
	}
	for _, c := range cases {
		got, err := tok.Encode(c.text, false)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%q", c.text)
	}
}

func TestSplitBehaviors(t *testing.T) {
	m := literalMatcher("-")
	cases := []struct {
		behavior splitBehavior
		invert   bool
		want     []string
	}{
		{behaviorRemoved, false, []string{"a", "b", "c"}},
		{behaviorIsolated, false, []string{"a", "-", "b", "-", "-", "c"}},
		{behaviorMergedWithPrevious, false, []string{"a-", "b-", "-", "c"}},
		{behaviorMergedWithNext, false, []string{"a", "-b", "-", "-c"}},
		{behaviorContiguous, false, []string{"a", "-", "b", "--", "c"}},
		{behaviorRemoved, true, []string{"-", "-", "-"}},
	}
	for _, c := range cases {
		var sc scratch
		var got []string
		pieces, err := splitPiece(nil, piece{s: "a-b--c"}, m, c.behavior, c.invert, &sc)
		require.NoError(t, err)
		for _, p := range pieces {
			got = append(got, p.s)
		}
		require.Equal(t, c.want, got, "behavior %d invert %v", c.behavior, c.invert)
	}
}
