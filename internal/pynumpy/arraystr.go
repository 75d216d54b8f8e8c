// Package pynumpy writes what numpy prints, byte for byte, where lm-eval's
// files hold it: lm-eval's samples file stores a multiple_choice doc's
// brier_score item as str() of a numpy array (json.dumps falls back to str for
// ndarrays).
package pynumpy

import (
	"math"
	"strconv"
	"strings"
)

// Numpy's default print options (np.get_printoptions()): 8 digits after the
// point at most, lines of at most 75 characters.
const (
	precision = 8
	lineWidth = 75
)

// ArrayStr is str(numpy.array(xs)) for a 1-D float64 array under numpy's default
// print options (numpy ≥ 1.14 formatting: floatmode "maxprec", no suppression):
// every element in one format, positional or scientific, padded to a common
// width, separated by spaces and wrapped at 75 characters with a one-space
// indent. It follows numpy/core/arrayprint.py's FloatingFormat and _formatArray.
// Arrays over 1,000 elements, which numpy summarises with "...", are not
// expected here and are written whole.
func ArrayStr(xs []float64) string {
	f := newFloatFormat(xs)
	words := make([]string, len(xs))
	for i, x := range xs {
		words[i] = f.format(x)
	}
	return wrap(words)
}

// floatFormat is numpy's FloatingFormat after fillFormat, for one array.
type floatFormat struct {
	exp               bool
	padLeft, padRight int
	prec              int // scientific: digits after the point, every element
	expDigits         int // scientific: exponent digits
}

func newFloatFormat(xs []float64) floatFormat {
	var f floatFormat
	var finite []float64
	minAbs, maxAbs, nonZero := math.Inf(1), 0.0, false
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		finite = append(finite, x)
		if a := math.Abs(x); a != 0 {
			nonZero = true
			minAbs, maxAbs = math.Min(minAbs, a), math.Max(maxAbs, a)
		}
	}
	f.exp = nonZero && (maxAbs >= 1e8 || minAbs < 0.0001 || maxAbs/minAbs > 1000)
	for _, x := range finite {
		if f.exp {
			mant, exp := shortestSci(x)
			ip, fp, _ := strings.Cut(mant, ".")
			f.padLeft = max(f.padLeft, len(ip))
			f.prec = max(f.prec, len(fp))
			f.expDigits = max(f.expDigits, len(exp)-1) // exp holds its sign
		} else {
			ip, fp, _ := strings.Cut(shortestFixed(x), ".")
			f.padLeft = max(f.padLeft, len(ip))
			f.padRight = max(f.padRight, len(fp))
		}
	}
	if f.exp {
		f.padRight = f.expDigits + 2 + f.prec
	}
	if len(finite) != len(xs) {
		// Room for "nan", "inf" and "-inf" (the sign is '-' by default).
		negInf := 0
		for _, x := range xs {
			if math.IsInf(x, -1) {
				negInf = 1
			}
		}
		offset := f.padRight + 1
		f.padLeft = max(f.padLeft, 3-offset, 3+negInf-offset)
	}
	return f
}

func (f floatFormat) format(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		s := "nan"
		if math.IsInf(x, 1) {
			s = "inf"
		} else if math.IsInf(x, -1) {
			s = "-inf"
		}
		return strings.Repeat(" ", max(0, f.padLeft+f.padRight+1-len(s))) + s
	}
	if f.exp {
		mant, exp := shortestSci(x)
		ip, fp, _ := strings.Cut(mant, ".")
		sign, digits := exp[:1], exp[1:]
		return pad(ip, f.padLeft) + "." + fp + strings.Repeat("0", f.prec-len(fp)) +
			"e" + sign + strings.Repeat("0", max(0, f.expDigits-len(digits))) + digits
	}
	ip, fp, _ := strings.Cut(shortestFixed(x), ".")
	return pad(ip, f.padLeft) + "." + fp + strings.Repeat(" ", f.padRight-len(fp))
}

func pad(s string, width int) string { return strings.Repeat(" ", max(0, width-len(s))) + s }

// shortestFixed is numpy's dragon4_positional(x, precision=8, unique=True,
// trim='.'): the shortest digits that read back as x, or x rounded to 8 digits
// after the point when those are more, trailing zeros dropped, the point kept.
func shortestFixed(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if _, fp, _ := strings.Cut(s, "."); len(fp) > precision {
		s = strings.TrimRight(strconv.FormatFloat(x, 'f', precision, 64), "0")
	}
	if !strings.Contains(s, ".") {
		s += "."
	}
	return s
}

// shortestSci is numpy's dragon4_scientific(x, precision=8, unique=True,
// trim='.'): mantissa ("2.5", "1.") and exponent with its sign ("-05").
func shortestSci(x float64) (mant, exp string) {
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ = strings.Cut(s, "e")
	if _, fp, _ := strings.Cut(mant, "."); len(fp) > precision {
		mant, exp, _ = strings.Cut(strconv.FormatFloat(x, 'e', precision, 64), "e")
		mant = strings.TrimRight(mant, "0")
	}
	if !strings.Contains(mant, ".") {
		mant += "."
	}
	return mant, exp
}

// wrap joins the elements as numpy's _formatArray does for one axis: a word that
// would pass the line width (75, less one for the closing bracket) starts a new
// line indented by one space, unless the line holds nothing yet.
func wrap(words []string) string {
	const indent = " "
	var b strings.Builder
	line := indent
	for i, w := range words {
		if len(line)+len(w) > lineWidth-1 && len(line) > len(indent) {
			b.WriteString(strings.TrimRight(line, " "))
			b.WriteString("\n")
			line = indent
		}
		line += w
		if i < len(words)-1 {
			line += " "
		}
	}
	b.WriteString(line)
	return "[" + b.String()[len(indent):] + "]"
}
