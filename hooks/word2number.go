package hooks

// word2number 1.1's w2n.word_to_num (PyPI, June 2017), which BBH's
// NumberParseRegexFilter calls on English number words: words outside its
// table ("and", "&", ",") are dropped, multipliers are split at billion,
// million and thousand, and each part is read by number_formation's
// positional rules (which misread some inputs, e.g. "one million two
// thousand": those quirks are reproduced, not fixed).

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

var w2nValues = map[string]int64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
	"million": 1000000, "billion": 1000000000,
}

// errW2N is word_to_num's ValueError.
var errW2N = errors.New("word2number: ValueError")

// wordToNum returns str(w2n.word_to_num(s)).
func wordToNum(s string) (string, error) {
	s = PyLower(strings.ReplaceAll(s, "-", " "))
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		// isdigit(): int() of it; digits of any script.
		return pyIntString(s), nil
	}
	var words, decimals []string
	points := 0
	for _, w := range strings.FieldsFunc(s, pyIsSpace) {
		if _, ok := w2nValues[w]; ok || w == "point" {
			words = append(words, w)
			if w == "point" {
				points++
			}
		}
	}
	if len(words) == 0 {
		return "", errW2N
	}
	count := func(w string) int {
		n := 0
		for _, x := range words {
			if x == w {
				n++
			}
		}
		return n
	}
	if count("thousand") > 1 || count("million") > 1 || count("billion") > 1 || points > 1 {
		return "", errW2N
	}
	if points == 1 {
		i := indexOf(words, "point")
		words, decimals = words[:i], words[i+1:]
	}
	bi, mi, ti := indexOf(words, "billion"), indexOf(words, "million"), indexOf(words, "thousand")
	if (ti > -1 && (ti < mi || ti < bi)) || (mi > -1 && mi < bi) {
		return "", errW2N
	}
	var total int64
	var err error
	form := func(ws []string) int64 {
		v, e := numberFormation(ws)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	switch {
	case len(words) == 1:
		total = w2nValues[words[0]]
	case len(words) > 1:
		if bi > -1 {
			total += form(words[:bi]) * 1000000000
		}
		if mi > -1 {
			if bi > -1 {
				total += form(words[bi+1:mi]) * 1000000
			} else {
				total += form(words[:mi]) * 1000000
			}
		}
		if ti > -1 {
			switch {
			case mi > -1:
				total += form(words[mi+1:ti]) * 1000
			case bi > -1:
				total += form(words[bi+1:ti]) * 1000
			default:
				total += form(words[:ti]) * 1000
			}
		}
		last := len(words) - 1
		switch {
		case ti > -1 && ti != last:
			total += form(words[ti+1:])
		case mi > -1 && mi != last:
			total += form(words[mi+1:])
		case bi > -1 && bi != last:
			total += form(words[bi+1:])
		case ti == -1 && mi == -1 && bi == -1:
			total += form(words)
		}
	}
	if err != nil {
		return "", err
	}
	if len(decimals) == 0 {
		return strconv.FormatInt(total, 10), nil
	}
	digits := "0."
	for _, d := range decimals {
		v, ok := w2nValues[d]
		if !ok || v > 9 {
			return strconv.FormatInt(total, 10), nil // get_decimal_sum returns 0: int + 0 stays an int
		}
		digits += strconv.FormatInt(v, 10)
	}
	f, _ := strconv.ParseFloat(digits, 64)
	return PyFloat(float64(total) + f), nil
}

// numberFormation is number_formation: four words a*b+c+d, three a*b+c,
// two a*b with a hundred else a+b, one a; none is an IndexError.
func numberFormation(ws []string) (int64, error) {
	n := make([]int64, len(ws))
	for i, w := range ws {
		n[i] = w2nValues[w]
	}
	switch len(n) {
	case 0:
		return 0, errW2N
	case 4:
		return n[0]*n[1] + n[2] + n[3], nil
	case 3:
		return n[0]*n[1] + n[2], nil
	case 2:
		if n[0] == 100 || n[1] == 100 {
			return n[0] * n[1], nil
		}
		return n[0] + n[1], nil
	}
	return n[0], nil
}

func indexOf(ws []string, w string) int {
	for i, x := range ws {
		if x == w {
			return i
		}
	}
	return -1
}

// pyIntString is str(int(s)) for a string of decimal digits of any script.
func pyIntString(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune('0' + rune(digitValue(r)))
	}
	out := strings.TrimLeft(b.String(), "0")
	if out == "" {
		return "0"
	}
	return out
}

// digitValue is the decimal value of a Unicode Nd character: Nd digits come
// in runs of ten starting at a code point whose value is 0.
func digitValue(r rune) int {
	for i := 0; i < 10; i++ {
		if !unicode.IsDigit(r - rune(i)) {
			return i - 1
		}
	}
	return int(r-'0') % 10
}
