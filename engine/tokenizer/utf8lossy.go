package tokenizer

import "unicode/utf8"

// appendLossyUTF8 appends b to dst with each maximal invalid subsequence replaced
// by one U+FFFD — Rust's String::from_utf8_lossy (the WHATWG rule). Go's own
// strings.ToValidUTF8 collapses whole invalid runs instead, which differs.
func appendLossyUTF8(dst []byte, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		n := validPrefixLen(b[i:])
		if n > 0 {
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		dst = append(dst, "\uFFFD"...)
		i += max(1, invalidSubpartLen(b[i:]))
	}
	return dst
}

// validPrefixLen is the length of the complete valid rune at the start of b, or 0.
func validPrefixLen(b []byte) int {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return 0
	}
	return size
}

// invalidSubpartLen is how many bytes of an incomplete or invalid sequence at the
// start of b form a maximal prefix of some valid sequence (at least 1).
func invalidSubpartLen(b []byte) int {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead >= 0xE1 && lead <= 0xEC, lead == 0xEE, lead == 0xEF:
		need = 2
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		c := b[n]
		if k == 0 && (c < lo || c > hi) || k > 0 && (c < 0x80 || c > 0xBF) {
			break
		}
		n++
	}
	return n
}

// lossyString makes s valid UTF-8 the Rust way; valid input is returned as is.
func lossyString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendLossyUTF8(nil, []byte(s)))
}
