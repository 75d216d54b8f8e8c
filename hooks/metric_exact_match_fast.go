package hooks

import (
	"slices"
	"strings"
)

// normalizeGSM8K is ExactMatcher.Normalize for exactly GSM8KIgnore with
// ignore_case, without regexps (five times faster on GSM8K answers).
// FuzzFastNormalizeMatchesRegexp holds it to the regexp implementation.
func normalizeGSM8K(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	s = strings.ReplaceAll(s, "$", "")
	// (?s).*#### is greedy from the start: it removes through the last "#### ".
	if i := strings.LastIndex(s, "#### "); i >= 0 {
		s = s[i+len("#### "):]
	}
	// Python's \.$ : a final "." or a "." before a final "\n".
	switch {
	case strings.HasSuffix(s, "."):
		s = s[:len(s)-1]
	case strings.HasSuffix(s, ".\n"):
		s = s[:len(s)-2] + "\n"
	}
	return PyLower(s)
}

func isGSM8KIgnore(regexes []string, ignoreCase bool) bool {
	return ignoreCase && slices.Equal(regexes, GSM8KIgnore)
}
