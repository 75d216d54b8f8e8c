package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const janetAnswer = "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.\n#### 18"

func TestExactMatch(t *testing.T) {
	tests := []struct {
		pred, ref string
		want      bool
	}{
		{"18", janetAnswer, true}, // gsm8k's reference is the whole answer
		{"18", "18", true},
		{"1,000", "1000", true},
		{"$18", "18", true},
		{"18.", "18", true},
		{"18.00", "18", false}, // lm-eval's known complaint
		{"18..", "18", false},  // only one final "." goes
		{"[invalid]", "18", false},
		{"-5", "-5", true},
		{"5", "-5", false},
		{"5.\n", "5\n", true}, // Python's "$" matches before a final newline
		{"5.\n", "5", false},
		{"ABC", "abc", true},
		{"#### 7", "7", true},
		{"7 #### 8", "8", true},
		{"1.5", "1,5", false},
		{"\u0130", "i\u0307", true}, // Python lowercases U+0130 to two code points
		{"$1,234.", "#### 1,234", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ExactMatch(tt.pred, tt.ref), "%q vs %q", tt.pred, tt.ref)
	}
}

func normalized(t testing.TB, m *ExactMatcher, s string) string {
	t.Helper()
	out, err := m.Normalize(s)
	require.NoError(t, err)
	return out
}

func TestExactMatcherNormalize(t *testing.T) {
	m, err := NewExactMatcher(GSM8KIgnore, true)
	require.NoError(t, err)
	tests := []struct{ in, want string }{
		{"$1,234.", "1234"},
		{"a,b$c#### D.", "d"},
		{"x #### y #### Z", "z"},     // (?s).* is greedy: up to the last "#### "
		{"multi\nline\n#### 5", "5"}, // (?s): "." crosses newlines
		{"5.\n", "5\n"},
		{"5.\n\n", "5.\n\n"}, // "$" only before the final newline
		{"...", ".."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, normalized(t, m, tt.in), "%q", tt.in)
	}

	m, err = NewExactMatcher([]string{`\$`, `a$`}, false)
	require.NoError(t, err)
	assert.Equal(t, "5 dollars", normalized(t, m, "$5 dollars"), `an escaped \$ is not an anchor`)
	assert.Equal(t, "Ab", normalized(t, m, "Aba"))
	_, err = NewExactMatcher([]string{"(?P<x"}, true)
	assert.ErrorContains(t, err, "regexes_to_ignore")
}

// gsm8kGrade is a GSM8K grade seen as the three scores of the old layout.

func TestExactMatchOptions(t *testing.T) {
	tests := []struct {
		spec       MetricOptions
		pred, ref  string
		wantEquals bool
	}{
		{MetricOptions{}, "(B)", "(B)", true},
		{MetricOptions{}, "(b)", "(B)", false},
		{MetricOptions{IgnoreCase: true}, "(b)", "(B)", true},
		{MetricOptions{IgnorePunctuation: true}, "B.", "(B)", true},
		{MetricOptions{IgnorePunctuation: true}, "B’", "B", false}, // string.punctuation is ASCII only
		{MetricOptions{IgnoreNumbers: true}, "x1", "x22", true},
		{MetricOptions{RegexesToIgnore: []string{`\s+`}}, " 1 2 ", "12", true},
		{MetricOptions{RegexesToIgnore: []string{`(?<=a)b`}}, "ab", "a", true},
	}
	for _, tt := range tests {
		m, err := newExactMatcher(tt.spec)
		require.NoError(t, err)
		got, err := m.Match(tt.pred, tt.ref)
		require.NoError(t, err)
		assert.Equal(t, tt.wantEquals, got, "%+v: %q vs %q", tt.spec, tt.pred, tt.ref)
	}
}

// FuzzFastNormalizeMatchesRegexp holds the hand-written GSM8K normaliser to
// the regexp rules (themselves checked against Python in TestExactMatcherNormalize).
func FuzzFastNormalizeMatchesRegexp(f *testing.F) {
	for _, s := range []string{"$1,234.", "5.\n", "5.\n\n", "a#### b#### c", "##### 5", "x.\n.", "\u0130.", "", "."} {
		f.Add(s)
	}
	fast, err := NewExactMatcher(GSM8KIgnore, true)
	require.NoError(f, err)
	require.NotNil(f, fast.fast)
	slow, err := NewExactMatcher(GSM8KIgnore, true)
	require.NoError(f, err)
	slow.fast = nil
	f.Fuzz(func(t *testing.T, s string) {
		if a, b := normalized(t, fast, s), normalized(t, slow, s); a != b {
			t.Fatalf("%q: fast %q, regexp %q", s, a, b)
		}
	})
}
