package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegexFilterGroups(t *testing.T) {
	tests := []struct {
		name     string
		spec     RegexSpec
		response string
		want     string
	}{
		{"no groups: whole match", RegexSpec{Pattern: `[0-9]+`}, "a 12 b 34", "12"},
		{"group select 1", RegexSpec{Pattern: `[0-9]+`, GroupSelect: 1}, "a 12 b 34", "34"},
		{"index out of range gives fallback", RegexSpec{Pattern: `[0-9]+`, GroupSelect: 5, Fallback: "none"}, "1", "none"},
		{"negative out of range", RegexSpec{Pattern: `[0-9]+`, GroupSelect: -3}, "1 2", "[invalid]"},
		{"one group, not participating: empty, not fallback", RegexSpec{Pattern: `x(y)?`}, "x", ""},
		{"tuple, all groups empty: fallback", RegexSpec{Pattern: `x(y)?(z)?`}, "x", "[invalid]"},
		{"strip Python whitespace incl. \\x1f", RegexSpec{Pattern: `<(.*)>`}, "<\x1f 7 \t>", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewRegexFilter(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.Apply(tt.response))
		})
	}
	_, err := NewRegexFilter(RegexSpec{Pattern: `(?<=x`})
	assert.ErrorContains(t, err, "(?<=x")
}

// FuzzFastScannersMatchRegexp holds the linear scanners to what Go's regexp
// (itself checked against Python above) returns for the same pattern.
func FuzzFastScannersMatchRegexp(f *testing.F) {
	for _, s := range []string{"-", "--5", "-$", "$5", "1, 2, 3,", "The final answer is -", "The final answer is The final answer is 5",
		"The final answer is 5. x", "a-12.5-3", "\xff9\x009", "Answer: 42 ...", "ab-c-1-"} {
		f.Add(s)
	}
	type pair struct{ fast, slow *RegexFilter }
	var pairs []pair
	for pat := range fastScanners {
		for _, g := range []int{0, 1, -1, -2} {
			spec := RegexSpec{Pattern: pat, GroupSelect: g}
			fast, err := NewRegexFilter(spec)
			require.NoError(f, err)
			require.NotNil(f, fast.fast)
			slow, err := NewRegexFilter(spec)
			require.NoError(f, err)
			slow.fast = nil
			pairs = append(pairs, pair{fast, slow})
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pairs {
			if a, b := p.fast.Apply(s), p.slow.Apply(s); a != b {
				t.Fatalf("pattern %q group %d on %q: fast %q, regexp %q", p.slow.re.src, p.slow.groupSelect, s, a, b)
			}
		}
	})
}

// BenchmarkFlexibleExtract compares the hand-written scanner with the
// regexp engine on the same GSM8K-style responses (the peer figure for the
// scanner's speed-up).
func BenchmarkFlexibleExtract(b *testing.B) {
	resp := strings.Repeat("Janet sells 16 - 3 - 4 = 9 duck eggs a day. She makes 9 * 2 = $18 every day. ", 8) + "The answer is 18."
	for _, scanner := range []bool{true, false} {
		f, err := NewRegexFilter(RegexSpec{Pattern: `(-?[$0-9.,]{2,})|(-?[0-9]+)`, GroupSelect: -1})
		require.NoError(b, err)
		if !scanner {
			f.fast = nil
		}
		b.Run(map[bool]string{true: "scanner", false: "regexp"}[scanner], func(b *testing.B) {
			for b.Loop() {
				_ = f.Apply(resp)
			}
		})
	}
}
