// Package pyfloat formats float64 values as Python's repr(float) does, the
// spelling lm-eval's prompts, its json.dumps output and transformers' config
// files carry.
package pyfloat

import (
	"strconv"
	"strings"
)

// Repr is Python's repr of a finite float: the shortest round-tripping digits,
// positional for decimal exponents -4..15 and always with a fraction (10000.0,
// 0.02, 0.0001), else d.ddde±XX (1e-05, 1.5e+16). Non-finite values are the
// caller's: Python's str writes nan/inf, json.dumps NaN/Infinity.
func Repr(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e // Go's shortest 'e' form is Python's: 1e-05, -1.5e+16, 1e+300
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
