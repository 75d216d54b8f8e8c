package tokenizer

// GPT-2's byte-level alphabet: every byte gets a printable rune so BPE vocabularies
// can be stored as text. Printable Latin-1 bytes map to themselves, the remaining 68
// bytes to U+0100 onwards, in byte order (bytes_to_unicode in the GPT-2 code).
var (
	byteToRune [256]rune
	// runeToByte inverts byteToRune; the alphabet ends at U+0143. Entries
	// outside it are -1.
	runeToByte [0x144]int16
	// byteToString caches the one-rune strings so mapping text allocates once.
	byteToString [256]string
)

func init() {
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	next := rune(256)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = next
			next++
		}
		runeToByte[byteToRune[b]] = int16(b)
		byteToString[b] = string(byteToRune[b])
	}
}

// appendByteLevel appends s with every byte replaced by its alphabet rune.
func appendByteLevel(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		r := byteToRune[s[i]]
		if r < 0x80 {
			dst = append(dst, byte(r))
		} else {
			dst = append(dst, byteToString[s[i]]...)
		}
	}
	return dst
}

// byteOfRune returns the byte an alphabet rune stands for.
func byteOfRune(r rune) (byte, bool) {
	if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
		return 0, false
	}
	return byte(runeToByte[r]), true
}
