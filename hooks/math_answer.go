package hooks

// The MATH answer normalisation that hendrycks_math's and aime's utils.py
// share (copied upstream from the original hendrycks_math.py):
// last_boxed_only_string, remove_boxed, strip_string and is_equiv, each step
// as Python runs it, exceptions included. Python indexes strings by code
// point, so every step that takes s[0], s[1] or len() works on runes.

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errPython stands for an exception the Python code raises (AssertionError,
// IndexError, ValueError); is_equiv catches them all.
var errPython = errors.New("python exception")

// lastBoxedOnlyString is last_boxed_only_string; ok is false for None.
func lastBoxedOnlyString(s string) (string, bool) {
	idx := strings.LastIndex(s, "\\boxed")
	if strings.Contains(s, "\\boxed ") {
		parts := strings.Split(s, "\\boxed ")
		last := parts[len(parts)-1]
		return "\\boxed " + strings.Split(last, "$")[0], true
	}
	if idx < 0 {
		if idx = strings.LastIndex(s, "\\fbox"); idx < 0 {
			return "", false
		}
	}
	open := 0
	for i := idx; i < len(s); i++ {
		switch s[i] {
		case '{':
			open++
		case '}':
			open--
			if open == 0 {
				return s[idx : i+1], true
			}
		}
	}
	return "", false
}

// removeBoxed is remove_boxed; an error is its AssertionError or IndexError.
func removeBoxed(s string) (string, error) {
	if strings.Contains(s, "\\boxed ") {
		if !strings.HasPrefix(s, "\\boxed ") {
			return "", errPython
		}
		return s[len("\\boxed "):], nil
	}
	const left = "\\boxed{"
	if !strings.HasPrefix(s, left) || !strings.HasSuffix(s, "}") {
		return "", errPython
	}
	return s[len(left) : len(s)-1], nil
}

// isEquiv is is_equiv for two strings: strip_string both and compare, or,
// when strip_string raises, compare the raw strings.
func isEquiv(a, b string) bool {
	sa, errA := stripString(a)
	if errA == nil {
		sb, errB := stripString(b)
		if errB == nil {
			return sa == sb
		}
	}
	return a == b
}

// stripString is strip_string; an error is any exception it raises.
func stripString(s string) (string, error) {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, "\\!", "")
	s = strings.ReplaceAll(s, "\\\\", "\\")
	s = strings.ReplaceAll(s, "tfrac", "frac")
	s = strings.ReplaceAll(s, "dfrac", "frac")
	s = strings.ReplaceAll(s, "\\left", "")
	s = strings.ReplaceAll(s, "\\right", "")
	s = strings.ReplaceAll(s, "^{\\circ}", "")
	s = strings.ReplaceAll(s, "^\\circ", "")
	s = strings.ReplaceAll(s, "\\$", "")
	if strings.Contains(s, "\\text{ ") { // remove_right_units
		parts := strings.Split(s, "\\text{ ")
		if len(parts) != 2 {
			return "", errPython
		}
		s = parts[0]
	}
	s = strings.ReplaceAll(s, "\\%", "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if s == "" {
		return s, nil
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && utf8.RuneCountInString(parts[0]) <= 2 {
		s = parts[1]
	}
	s, err := fixSqrt(s)
	if err != nil {
		return "", err
	}
	s = strings.ReplaceAll(s, " ", "")
	if s, err = fixFracs(s); err != nil {
		return "", err
	}
	if s == "0.5" {
		s = "\\frac{1}{2}"
	}
	return fixASlashB(s)
}

// fixSqrt is fix_sqrt: "\sqrt3" becomes "\sqrt{3}" (one character).
func fixSqrt(s string) (string, error) {
	if !strings.Contains(s, "\\sqrt") {
		return s, nil
	}
	parts := strings.Split(s, "\\sqrt")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		if p == "" {
			return "", errPython // split[0] on an empty string: IndexError
		}
		r, n := utf8.DecodeRuneInString(p)
		if r != '{' {
			b.WriteString("\\sqrt{" + p[:n] + "}" + p[n:])
		} else {
			b.WriteString("\\sqrt" + p)
		}
	}
	return b.String(), nil
}

// fixFracs is fix_fracs: "\frac12" becomes "\frac{1}{2}", "\frac1{2}"
// becomes "\frac{1}{2}"; a "\frac" with fewer than two characters after it
// leaves the whole string as it was.
func fixFracs(s string) (string, error) {
	parts := strings.Split(s, "\\frac")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		b.WriteString("\\frac")
		if p == "" {
			return "", errPython // substr[0]: IndexError
		}
		if p[0] == '{' {
			b.WriteString(p)
			continue
		}
		a, n := utf8.DecodeRuneInString(p)
		if n == len(p) {
			return s, nil // assert len(substr) >= 2 failed
		}
		c, m := utf8.DecodeRuneInString(p[n:])
		rest := p[n+m:]
		if c != '{' {
			b.WriteString("{" + string(a) + "}{" + string(c) + "}" + rest)
		} else {
			b.WriteString("{" + string(a) + "}" + string(c) + rest)
		}
	}
	return b.String(), nil
}

// fixASlashB is fix_a_slash_b: "a/b" of two integers written canonically
// becomes "\frac{a}{b}". int() failing raises ValueError, which the function
// does not catch; two integers written otherwise ("01/2") stay as they are.
func fixASlashB(s string) (string, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return s, nil
	}
	for _, p := range parts {
		if !pyIntParses(p) {
			return "", errPython
		}
	}
	if !canonicalInt(parts[0]) || !canonicalInt(parts[1]) {
		return s, nil
	}
	return "\\frac{" + parts[0] + "}{" + parts[1] + "}", nil
}

// pyIntParses says whether Python's int(s) accepts s: surrounding
// whitespace, an optional sign, decimal digits (any script) with single
// underscores between them.
func pyIntParses(s string) bool {
	s = PyStrip(s)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	prevDigit := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			prevDigit = true
		case r == '_' && prevDigit:
			prevDigit = false
		default:
			return false
		}
	}
	return prevDigit
}

// canonicalInt says whether str(int(s)) == s.
func canonicalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || (d[0] == '0' && len(d) > 1) || (s[0] == '-' && d == "0") {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// dollarSpan is the answer hendrycks_math and aime read from a response: the
// text between the first and the last "$" when there are two or more, else
// the whole response.
func dollarSpan(s string) string {
	first, last := strings.IndexByte(s, '$'), strings.LastIndexByte(s, '$')
	if first < 0 || first == last {
		return s
	}
	return s[first+1 : last]
}
