package textmetrics

import (
	"strings"
	"unicode"
)

// isPySpace is Python's str.isspace for one code point: Unicode White_Space
// plus the separators \x1c-\x1f, which Python counts and Go does not.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pyFields is Python's str.split() without arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, isPySpace) }

// pyRStrip is Python's str.rstrip() without arguments.
func pyRStrip(s string) string { return strings.TrimRightFunc(s, isPySpace) }

// isPyWord is a character of Python's \w for str patterns: str.isalnum()
// (letters and every numeric category) or "_".
func isPyWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// pyLower is Python's str.lower() where it differs from Go's simple mapping
// in practice: U+0130 lowers to "i" + U+0307. Greek final sigma is not
// reproduced (Python lowers a word-final Σ to ς, Go to σ).
func pyLower(s string) string { return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307")) }
