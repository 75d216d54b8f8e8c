package reports

import (
	"errors"
	"fmt"
	"math"
)

// McNemarExact names McNemar's test as computed here, in comparisons.arrow's
// mcnemar_test: the exact binomial test on the discordant pairs (McNemar
// 1947 gives the test; its exact form conditions on b + c and is cheap at
// any size, so no chi-square approximation is used).
const McNemarExact = "exact_binomial"

// McNemarTest is the result of a McNemar test.
type McNemarTest struct {
	B, C   int    // discordant pairs: A right & B wrong, A wrong & B right
	Method string // McNemarExact
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

// McNemarCounts runs the test from the discordant counts b and c: under H0 b
// is Binomial(b+c, ½), and p = min(1, 2·P(X ≤ min(b, c))), the two-sided
// exact binomial p (doubling the smaller tail; with π = ½ the distribution is
// symmetric, so this is also the "minimum likelihood" p of scipy's
// binomtest). The terms are summed in log space, so n may be any size.
func McNemarCounts(b, c int) (McNemarTest, error) {
	if b < 0 || c < 0 {
		return McNemarTest{}, errors.New("mcnemar: negative count")
	}
	n, k := b+c, min(b, c)
	t := McNemarTest{B: b, C: c, Method: McNemarExact}
	if 2*k == n { // b = c, including no discordant pair: no evidence either way
		t.P = 1
		return t, nil
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	var sum float64
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		r, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - a - r - float64(n)*math.Ln2)
	}
	t.P = min(1, 2*sum)
	return t, nil
}
