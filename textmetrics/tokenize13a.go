package textmetrics

import "strings"

// Tokenize13a is sacrebleu's "13a" tokenizer (mteval-v13a.pl, the BLEU
// default lm-eval gets): it drops "<skipped>" and "-\n", turns newlines into
// spaces, unescapes &quot; &amp; &lt; &gt;, then applies the four
// substitutions of sacrebleu's regexp tokenizer in order and collapses
// whitespace.
func Tokenize13a(line string) string {
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.Contains(line, "&") {
		line = strings.ReplaceAll(line, "&quot;", `"`)
		line = strings.ReplaceAll(line, "&amp;", "&")
		line = strings.ReplaceAll(line, "&lt;", "<")
		line = strings.ReplaceAll(line, "&gt;", ">")
	}
	return tokenizeRegexp(" " + line + " ")
}

// tokenizeRegexp is sacrebleu's TokenizerRegexp. Each pass is one re.sub of
// a two-character (or one-character) pattern, so a left-to-right scan that
// resumes after each match is exactly Python's non-overlapping substitution.
func tokenizeRegexp(line string) string {
	rs := []rune(line)
	// ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
	out := make([]rune, 0, len(rs)*2)
	for _, r := range rs {
		if isSymbol13a(r) {
			out = append(out, ' ', r, ' ')
		} else {
			out = append(out, r)
		}
	}
	// ([^0-9])([\.,]) -> "\1 \2 "
	out = subPairs(out, func(a, b rune) bool { return !isDigit(a) && isDotComma(b) },
		func(dst []rune, a, b rune) []rune { return append(dst, a, ' ', b, ' ') })
	// ([\.,])([^0-9]) -> " \1 \2"
	out = subPairs(out, func(a, b rune) bool { return isDotComma(a) && !isDigit(b) },
		func(dst []rune, a, b rune) []rune { return append(dst, ' ', a, ' ', b) })
	// ([0-9])(-) -> "\1 \2 "
	out = subPairs(out, func(a, b rune) bool { return isDigit(a) && b == '-' },
		func(dst []rune, a, b rune) []rune { return append(dst, a, ' ', b, ' ') })
	return strings.Join(pyFields(string(out)), " ")
}

// subPairs replaces every non-overlapping pair (a, b) that match accepts,
// scanning left to right, with what repl appends.
func subPairs(rs []rune, match func(a, b rune) bool, repl func(dst []rune, a, b rune) []rune) []rune {
	out := make([]rune, 0, len(rs)+len(rs)/2)
	i := 0
	for i+1 < len(rs) {
		if match(rs[i], rs[i+1]) {
			out = repl(out, rs[i], rs[i+1])
			i += 2
			continue
		}
		out = append(out, rs[i])
		i++
	}
	return append(out, rs[i:]...)
}

// isSymbol13a is the class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols and
// the space, but not ' , - . or alphanumerics.
func isSymbol13a(r rune) bool {
	switch {
	case r >= '{' && r <= '~', r >= '[' && r <= '`', r >= ' ' && r <= '&', r >= '(' && r <= '+', r >= ':' && r <= '@', r == '/':
		return true
	}
	return false
}

func isDigit(r rune) bool    { return r >= '0' && r <= '9' }
func isDotComma(r rune) bool { return r == '.' || r == ',' }
