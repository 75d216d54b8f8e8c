package reports

import (
	"errors"
	"fmt"
	"math"
)

// McNemar methods, as recorded in comparisons.arrow.
const (
	McNemarExact  = "exact"   // two-sided exact binomial test on the discordant pairs
	McNemarChi2CC = "chi2_cc" // chi-square with continuity correction, 1 df
)

// McNemarExactBelow is the number of discordant pairs under which the exact test
// is used (the common rule of thumb). From 25 on, the continuity-corrected
// chi-square p is close to the exact one near the usual thresholds and slightly
// conservative (b=10, c=20: 0.1003 against exact 0.0987; b=5, c=20: 0.0051
// against 0.0041); the integer sum below would overflow uint64 past n = 62.
const McNemarExactBelow = 25

// McNemarTest is the result of a McNemar test.
type McNemarTest struct {
	B, C   int    // discordant pairs: A right & B wrong, A wrong & B right
	Method string // McNemarExact or McNemarChi2CC
	Stat   float64
	P      float64
}

// McNemar tests whether A and B have the same accuracy on paired binary outcomes
// (a[i], b[i] scored on the same item).
func McNemar(a, b []bool) (McNemarTest, error) {
	if len(a) != len(b) {
		return McNemarTest{}, fmt.Errorf("mcnemar: %d outcomes for A, %d for B", len(a), len(b))
	}
	var nb, nc int
	for i := range a {
		switch {
		case a[i] && !b[i]:
			nb++
		case !a[i] && b[i]:
			nc++
		}
	}
	return McNemarCounts(nb, nc)
}

// McNemarCounts runs the test from the discordant counts b and c.
//
// When b+c < McNemarExactBelow: under H0 the b of the n = b+c discordant pairs
// is Binomial(n, 1/2), and p = min(1, 2·Σ_{k≤min(b,c)} C(n,k)/2^n); Stat is
// min(b, c). Otherwise Stat = (max(|b−c|−1, 0))²/(b+c) and p = P(χ²₁ > Stat) =
// erfc(√(Stat/2)). The max(·, 0) differs from R's mcnemar.test only when b = c,
// where R's correction overshoots and gives p < 1; here p = 1.
func McNemarCounts(b, c int) (McNemarTest, error) {
	if b < 0 || c < 0 {
		return McNemarTest{}, errors.New("mcnemar: negative count")
	}
	t := McNemarTest{B: b, C: c}
	n := b + c
	if n < McNemarExactBelow {
		t.Method = McNemarExact
		k := min(b, c)
		t.Stat = float64(k)
		// Integer sum: C(24, k) ≤ 2.7e6, so every term and the sum are exact.
		var sum, coef uint64 = 0, 1
		for i := 0; i <= k; i++ {
			sum += coef
			coef = coef * uint64(n-i) / uint64(i+1)
		}
		t.P = min(1, 2*float64(sum)/math.Ldexp(1, n))
		return t, nil
	}
	t.Method = McNemarChi2CC
	diff := math.Max(math.Abs(float64(b-c))-1, 0)
	t.Stat = diff * diff / float64(n)
	t.P = math.Erfc(math.Sqrt(t.Stat / 2))
	return t, nil
}
