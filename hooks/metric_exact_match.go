package hooks

// Scoring, lm-eval style: exact_match with regexes_to_ignore, ignore_case,
// ignore_punctuation and ignore_numbers (HF evaluate's exact_match, which
// lm-eval calls).

import (
	"fmt"
	"strings"
	"sync"
)

func init() {
	registerMetric(Metric{Name: "exact_match", Options: []string{"ignore_case", "ignore_punctuation", "ignore_numbers", "regexes_to_ignore"},
		New: func(o MetricOptions) (MetricFunc, error) {
			em, err := newExactMatcher(o)
			if err != nil {
				return nil, err
			}
			return func(p, r string) (float64, error) {
				ok, err := em.Match(p, r)
				return b2f(ok), err
			}, nil
		}})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ExactMatcher is lm-eval's exact_match (HF evaluate's): remove every
// regexes_to_ignore match from prediction and reference, in order; then
// ignore_case lowercases, ignore_punctuation drops ASCII punctuation
// (Python's string.punctuation) and ignore_numbers drops ASCII digits; then
// the strings are compared.
type ExactMatcher struct {
	rules             []*pyRegex
	ignoreCase        bool
	ignorePunctuation bool
	ignoreNumbers     bool
	fast              func(string) string // nil: apply rules
}

// NewExactMatcher compiles Python-syntax regexes_to_ignore (Python's
// semantics: its non-MULTILINE "$" also matches before a final "\n").
func NewExactMatcher(regexesToIgnore []string, ignoreCase bool) (*ExactMatcher, error) {
	return newExactMatcher(MetricOptions{RegexesToIgnore: regexesToIgnore, IgnoreCase: ignoreCase})
}

func newExactMatcher(spec MetricOptions) (*ExactMatcher, error) {
	m := &ExactMatcher{ignoreCase: spec.IgnoreCase, ignorePunctuation: spec.IgnorePunctuation, ignoreNumbers: spec.IgnoreNumbers}
	for _, p := range spec.RegexesToIgnore {
		re, err := compilePyRegex(p)
		if err != nil {
			return nil, fmt.Errorf("exact_match: regexes_to_ignore entry: %w", err)
		}
		m.rules = append(m.rules, re)
	}
	if isGSM8KIgnore(spec.RegexesToIgnore, spec.IgnoreCase) && !spec.IgnorePunctuation && !spec.IgnoreNumbers {
		m.fast = normalizeGSM8K
	}
	return m, nil
}

// Normalize applies the rules in order (each removes every match, as re.sub
// does), then the case, punctuation and number options. A rule that hits the
// regex time limit is an error naming its pattern, never a rule skipped: a
// skipped rule would score the text unchanged, silently wrong.
func (m *ExactMatcher) Normalize(s string) (string, error) {
	if m.fast != nil {
		return m.fast(s), nil
	}
	for _, r := range m.rules {
		out, err := r.removeAll(s)
		if err != nil {
			return "", fmt.Errorf("regexes_to_ignore: %w", err)
		}
		s = out
	}
	if m.ignoreCase {
		s = PyLower(s)
	}
	if m.ignorePunctuation {
		s = strings.Map(func(r rune) rune {
			if strings.ContainsRune(asciiPunctuation, r) {
				return -1
			}
			return r
		}, s)
	}
	if m.ignoreNumbers {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return s, nil
}

// Match reports exact_match after normalising both sides.
func (m *ExactMatcher) Match(prediction, reference string) (bool, error) {
	p, err := m.Normalize(prediction)
	if err != nil {
		return false, fmt.Errorf("prediction: %w", err)
	}
	r, err := m.Normalize(reference)
	if err != nil {
		return false, fmt.Errorf("reference: %w", err)
	}
	return p == r, nil
}

// GSM8KIgnore is the regexes_to_ignore of lm-eval's GSM8K tasks, in order.
var GSM8KIgnore = []string{",", `\$`, "(?s).*#### ", `\.$`}

var gsm8kMatcher = sync.OnceValue(func() *ExactMatcher {
	m, err := NewExactMatcher(GSM8KIgnore, true)
	if err != nil {
		panic(err) // constant patterns: a failure is a programming error
	}
	return m
})

// ExactMatch is lm-eval's GSM8K exact_match: remove ",", "$", everything up to
// the last "#### ", a final "."; lowercase; compare. The reference may be the
// bare target ("18") or the whole worked answer ("...\n#### 18").
func ExactMatch(prediction, reference string) bool {
	ok, _ := gsm8kMatcher().Match(prediction, reference) // the GSM8K rules run without regexps: no error
	return ok
}
