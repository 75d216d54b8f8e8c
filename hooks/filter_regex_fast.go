package hooks

import "strings"

// Go's regexp runs the lm-eval "last match" patterns in time quadratic in the
// response (FindAll restarts the bit-state backtracker, which clears a bitmap
// over the rest of the input, after every match): about 0.1 ms per GSM8K
// response, 0.45 ms for a long one. These hand-written scanners give the same
// matches in one linear pass; FuzzFastScannersMatchRegexp holds them to the
// regexp results.

// fastScanner returns, for every findall match in order, its first non-empty
// group (what RegexFilter.Apply keeps of a tuple match).
type fastScanner func(s string) []string

// fastScanners maps a pattern, byte for byte, to its scanner.
var fastScanners = map[string]fastScanner{
	`(-?[$0-9.,]{2,})|(-?[0-9]+)`:                       scanNumbers,
	`The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))`: scanFinalAnswer,
}

func isNumberByte(c byte) bool { return c == '$' || c == '.' || c == ',' || (c >= '0' && c <= '9') }
func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

func byteRunLen(s string, i int, in func(byte) bool) int {
	n := 0
	for i+n < len(s) && in(s[i+n]) {
		n++
	}
	return n
}

// numberMatchAt matches (-?[$0-9.,]{2,})|(-?[0-9]+) anchored at i, leftmost-first,
// and returns the end of the match or -1. Both alternatives are greedy with
// nothing after them, so each takes its longest run; a leading "-" that leaves
// too short a run cannot be given back usefully because "-" is in neither class.
func numberMatchAt(s string, i int) int {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	if n := byteRunLen(s, j, isNumberByte); n >= 2 {
		return j + n
	}
	if n := byteRunLen(s, j, isASCIIDigit); n >= 1 {
		return j + n
	}
	return -1
}

func scanNumbers(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if end := numberMatchAt(s, i); end > i {
			out = append(out, s[i:end])
			i = end
			continue
		}
		i++
	}
	return out
}

func scanFinalAnswer(s string) []string {
	const prefix = "The final answer is "
	var out []string
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], prefix)
		if k < 0 {
			break
		}
		start := i + k
		j := start + len(prefix)
		if end := numberMatchAt(s, j); end > j {
			out = append(out, s[j:end])
			i = end
			continue
		}
		i = start + 1
	}
	return out
}
