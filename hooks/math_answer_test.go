package hooks

import (
	"strings"
	"testing"
)

// The MATH normalisation never panics, and is_equiv is reflexive on any
// string, as Python's is (equal inputs normalise equally or compare raw).
func FuzzMathAnswer(f *testing.F) {
	for _, s := range []string{"\\boxed{\\frac12}", "\\sqrt", "\\frac", "1/2", "x=\\dfrac{3}{4}", "\\text{ cm}\\text{ m}", "٣/٤", "\\boxed 5$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = stripString(s)
		if !isEquiv(s, s) {
			t.Fatalf("is_equiv(%q, itself) is false", s)
		}
		if b, ok := lastBoxedOnlyString(s); ok && !strings.Contains(s, b) && !strings.HasPrefix(b, "\\boxed ") {
			t.Fatalf("last box %q is not part of %q", b, s)
		}
		_, _ = wordToNum(s)
	})
}

// BenchmarkIsEquiv is hendrycks_math's and aime's per-response comparison.
func BenchmarkIsEquiv(b *testing.B) {
	a, c := "The answer is $\\dfrac{3}{4}$ and \\sqrt2", "\\frac{3}{4}"
	for b.Loop() {
		_ = isEquiv(dollarSpan(a), c)
	}
}
