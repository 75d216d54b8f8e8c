package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// word_to_num on what BBH's English-number regex can hand it; the wants are
// worked out by hand from word2number 1.1's source (PyPI, June 2017),
// including its misreading of a thousand after a million.
func TestWordToNum(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"four", "4"},
		{"one", "1"},
		{"twenty one", "21"},
		{"twenty-one", "21"},
		{"one hundred and five", "105"},
		{"three hundred forty two", "342"},
		{"two thousand", "2000"},
		{"two thousand and nineteen", "2019"},
		{"one million two thousand", "1003002"}, // number_formation(["two", "thousand"]) = 2 + 1000
		{"five billion", "5000000000"},
		{"Seven", "7"},
	} {
		got, err := wordToNum(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"and", "thousand thousand", "thousand million"} {
		_, err := wordToNum(bad)
		assert.ErrorIs(t, err, errW2N, bad)
	}
}

// NumberParseRegexFilter's word path: the two responses hooks.json could not
// run (word2number is not installable there) and the regex's blind spots.
func TestNumberParseWords(t *testing.T) {
	f, err := bbhNumberParse(map[string]any{"group_select": int64(-1), "regex_pattern": "([-0-9]+)"})
	require.NoError(t, err)
	for _, tc := range []struct{ in, want string }{
		{"I count four fruits.", "4"},
		{"Someone put all of them in the kitchen.", "1"}, // "one" inside "someone": no word boundaries
		{"There are six.", "[invalid]"},                  // six needs -teen or -ty in this regex
		{"twenty three apples, so 23", "23"},             // digits win
		{"nothing to count", "[invalid]"},
	} {
		v, err := f(Values{Items: []string{tc.in}}, nil)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, v.Items[0], tc.in)
	}
}
