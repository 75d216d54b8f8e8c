package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Decode reads one JSON value as Python's json.loads keeps it, so Dumps
// writes it back as Python would: objects as *Dict in their key order (a
// repeated key keeps its first place and its last value), numbers as
// json.Number (their int or float kind is in the text), arrays as []any, and
// NaN, Infinity and -Infinity (json.dumps's non-finite floats) as float64.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(Standard(b)))
	dec.UseNumber()
	d := decoder{dec: dec, src: b}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Standard is b with json.dumps's non-finite literals (NaN, Infinity,
// -Infinity, where json.loads reads a value) replaced by 0 or -0 padded with
// spaces to the same length, so encoding/json reads the rest of Python's JSON
// text; it is b itself when b has none. Their values are lost: it is for
// reading fields that cannot hold them (Decode reads them).
func Standard(b []byte) []byte {
	var out []byte
	var prev byte // the last byte outside strings and whitespace
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			i = stringEnd(b, i)
		default:
			if n := nonFiniteLen(b[i:]); n > 0 && (prev == 0 || prev == '[' || prev == ',' || prev == ':') && valueEnds(b, i+n) {
				if out == nil {
					out = slices.Clone(b)
				}
				stand := "0"
				if c == '-' {
					stand = "-0"
				}
				copy(out[i:], stand)
				for j := i + len(stand); j < i+n; j++ {
					out[j] = ' '
				}
				i += n - 1
				c = '0'
			}
		}
		prev = c
	}
	if out == nil {
		return b
	}
	return out
}

// nonFiniteLen is the length of the NaN, Infinity or -Infinity b starts
// with, 0 if none.
func nonFiniteLen(b []byte) int {
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(lit)) {
			return len(lit)
		}
	}
	return 0
}

// nonFiniteAt is the value of the literal Standard replaced at b[i:].
func nonFiniteAt(b []byte, i int) (float64, bool) {
	switch n := nonFiniteLen(b[i:]); {
	case n == 0:
		return 0, false
	case b[i] == 'N':
		return math.NaN(), true
	case b[i] == '-':
		return math.Inf(-1), true
	}
	return math.Inf(1), true
}

// valueEnds reports whether a value may end before b[i]: at the end, or
// before whitespace or a delimiter (so "NaNx" or "Infinity1" stay errors).
func valueEnds(b []byte, i int) bool {
	return i == len(b) || bytes.IndexByte([]byte(" \t\n\r,]}"), b[i]) >= 0
}

// stringEnd is the index of the quote that closes the string opening at
// b[i] (len(b) if none).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

type decoder struct {
	dec *json.Decoder
	src []byte // the text before Standard
}

func (d decoder) value() (any, error) {
	t, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	if n, ok := t.(json.Number); ok {
		// A number's token ends at InputOffset; Standard kept every offset.
		if f, ok := nonFiniteAt(d.src, int(d.dec.InputOffset())-len(n)); ok {
			return f, nil
		}
		return n, nil
	}
	delim, ok := t.(json.Delim)
	if !ok {
		return t, nil
	}
	switch delim {
	case '{':
		o := &Dict{values: map[string]any{}}
		for d.dec.More() {
			kt, err := d.dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		_, err := d.dec.Token()
		return o, err
	case '[':
		list := []any{}
		for d.dec.More() {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := d.dec.Token()
		return list, err
	}
	return nil, fmt.Errorf("unexpected %v", delim)
}
