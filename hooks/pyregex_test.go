package hooks

import (
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzRE2PathMatchesBacktracker holds the routing in compilePyRegex to its
// promise: a pattern sent to Go's regexp finds what the backtracking engine
// (Python's semantics) finds, match for match and group for group.
func FuzzRE2PathMatchesBacktracker(f *testing.F) {
	patterns := []string{
		`#### (\-?[0-9\.\,]+)`, `The answer is (\-?[0-9\.\,]+).`, `The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))`,
		`(-?[$0-9.,]{2,})|(-?[0-9]+)`, `(\([A-Z]\))`, `[A-D]`, `answer: (yes|no)`,
	}
	type pair struct{ re2, bt *pyRegex }
	var pairs []pair
	for _, p := range patterns {
		fast, err := compilePyRegex(p)
		require.NoError(f, err)
		require.NotNil(f, fast.re, "%q should run on Go's regexp", p)
		bt, err := regexp2.Compile(p, regexp2.None)
		require.NoError(f, err)
		pairs = append(pairs, pair{fast, &pyRegex{src: p, re2: bt}})
	}
	for _, s := range []string{"#### 1,000.5", "The answer is (B). answer: yes", "The final answer is $12", "é (A) ü 42", "", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pairs {
			a, errA := p.re2.findAll(s)
			b, errB := p.bt.findAll(s)
			if errA != nil || errB != nil {
				t.Fatalf("%q: %v %v", p.re2.src, errA, errB)
			}
			if len(a) != len(b) {
				t.Fatalf("%q on %q: %d matches vs %d", p.re2.src, s, len(a), len(b))
			}
			for i := range a {
				assert.Equal(t, b[i], a[i], "%q on %q match %d", p.re2.src, s, i)
			}
		}
	})
}

func TestPythonOnlyPatternsUseTheBacktracker(t *testing.T) {
	for _, p := range []string{`(?<=the answer is )(.*)(?=.)`, `\d+`, `x$`, `(?P<n>a)(?P=n)`, `\bword\b`} {
		re, err := compilePyRegex(p)
		require.NoError(t, err)
		assert.Nil(t, re.re, "%q must not run on RE2", p)
	}
	re, err := compilePyRegex(`x$`)
	require.NoError(t, err)
	got, err := re.findAll("x\n")
	require.NoError(t, err)
	assert.Len(t, got, 1, `Python's "$" matches before a final newline`)
}
