package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Hand-written scanners for the pre-tokenizer regexes almost every byte-level
// model uses. They reproduce the backtracking engine's leftmost-first choice
// among the alternatives (FuzzScannersMatchRegex checks them against regexp2) and
// are many times faster than running the regex.

// The Llama 3 pattern; Qwen2 is identical but for \p{N} instead of \p{N}{1,3}.
const (
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Pattern  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

func fastScanner(pattern string) matcher {
	switch pattern {
	case llama3Pattern:
		return llama3Scanner{maxDigits: 3}
	case qwen2Pattern:
		return llama3Scanner{maxDigits: 1}
	case gpt2Pattern:
		return gpt2Scanner{}
	}
	return nil
}

type runeClass uint8

const (
	classOther runeClass = iota
	classLetter
	classNumber
	classSpace
)

var asciiClass [utf8.RuneSelf]runeClass

func init() {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		asciiClass[r] = classifySlow(r)
	}
}

func classifySlow(r rune) runeClass {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// at decodes the rune at i and its class; at the end of s it returns size 0.
func at(s string, i int) (rune, int, runeClass) {
	if i >= len(s) {
		return 0, 0, classOther
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, asciiClass[c]
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return r, size, classifySlow(r)
}

// runOf returns the end of the run of class cl starting at i.
func runOf(s string, i int, cl runeClass) int {
	for i < len(s) {
		_, size, c := at(s, i)
		if c != cl {
			break
		}
		i += size
	}
	return i
}

// contraction matches 's 't 're 've 'm 'll 'd at i (ASCII case folding when
// fold is set), returning the end or -1.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return -1
	}
	lower := func(c byte) byte {
		if fold && c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return i + 3
		}
	}
	return -1
}

// whitespaceTail handles \s+(?!\S)|\s+ for a whitespace run [i, end): the run
// minus its last character when a non-space follows, unless that would be empty.
func whitespaceTail(s string, i, end int) int {
	if end == len(s) {
		return end
	}
	_, lastSize := utf8.DecodeLastRuneInString(s[:end])
	if end-lastSize > i {
		return end - lastSize
	}
	return end
}

type llama3Scanner struct{ maxDigits int }

func (l llama3Scanner) matches(s string, fn func(start, end int)) error {
	for i := 0; i < len(s); {
		end := l.matchAt(s, i)
		fn(i, end)
		i = end
	}
	return nil
}

func (l llama3Scanner) matchAt(s string, i int) int {
	if e := contraction(s, i, true); e >= 0 {
		return e
	}
	r, size, cl := at(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if cl == classLetter {
		return runOf(s, i+size, classLetter)
	}
	if cl != classNumber && r != '\r' && r != '\n' {
		if _, size2, cl2 := at(s, i+size); cl2 == classLetter {
			return runOf(s, i+size+size2, classLetter)
		}
	}
	// \p{N}{1,3}
	if cl == classNumber {
		end := i + size
		for n := 1; n < l.maxDigits; n++ {
			_, sz, c := at(s, end)
			if c != classNumber {
				break
			}
			end += sz
		}
		return end
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	j := i
	if r == ' ' {
		j += size
	}
	if _, _, c := at(s, j); j < len(s) && c == classOther {
		end := runOf(s, j, classOther)
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	// \s*[\r\n]+ ends after the last newline of the whitespace run.
	end := runOf(s, i, classSpace)
	lastNL := -1
	for k := i; k < end; k++ {
		if s[k] == '\r' || s[k] == '\n' {
			lastNL = k
		}
	}
	if lastNL >= 0 {
		return lastNL + 1
	}
	// \s+(?!\S)|\s+ ; every rune has a class, so cl is classSpace here.
	return whitespaceTail(s, i, end)
}

type gpt2Scanner struct{}

func (gpt2Scanner) matches(s string, fn func(start, end int)) error {
	for i := 0; i < len(s); {
		end := gpt2MatchAt(s, i)
		fn(i, end)
		i = end
	}
	return nil
}

func gpt2MatchAt(s string, i int) int {
	if e := contraction(s, i, false); e >= 0 {
		return e
	}
	r, size, cl := at(s, i)
	j, clj := i, cl
	if r == ' ' {
		if _, _, c := at(s, i+size); i+size < len(s) && c != classSpace {
			j, clj = i+size, c
		}
	}
	//  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+
	if clj != classSpace {
		return runOf(s, j, clj)
	}
	// \s+(?!\S)|\s+
	return whitespaceTail(s, i, runOf(s, i, classSpace))
}
