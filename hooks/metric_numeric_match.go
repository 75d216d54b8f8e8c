package hooks

// numeric_match, offered beside lm-eval's exact_match because lm-eval's
// string match says 29.00 != 29.

import (
	"math/big"
	"regexp"
	"strings"
)

func init() {
	registerMetric(Metric{Name: "numeric_match", New: func(MetricOptions) (MetricFunc, error) {
		return func(p, r string) (float64, error) { return b2f(NumericMatch(p, r)), nil }, nil
	}})
}

var dropCommaDollar = strings.NewReplacer(",", "", "$", "")

var decimalRE = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// ParseDecimal reads a GSM8K-style number exactly: thousands commas, "$" and
// a reference's "... #### " prefix are dropped, as is one final "." ("18." is
// 18); what is left must be a plain decimal ("-3", "29.00", ".5").
func ParseDecimal(s string) (*big.Rat, bool) {
	s = dropCommaDollar.Replace(s)
	if i := strings.LastIndex(s, "#### "); i >= 0 {
		s = s[i+len("#### "):]
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	if !decimalRE.MatchString(s) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// NumericMatch reports whether prediction and reference are the same number
// (29.00 == 29, $1,000 == 1000, -0 == 0). Anything that is not a number,
// "[invalid]" included, does not match.
func NumericMatch(prediction, reference string) bool {
	p, ok := ParseDecimal(prediction)
	if !ok {
		return false
	}
	r, ok := ParseDecimal(reference)
	return ok && p.Cmp(r) == 0
}
