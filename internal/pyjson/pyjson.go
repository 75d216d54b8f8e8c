// Package pyjson writes values as CPython's json.dumps does, byte for byte:
// Python's separators (", " and ": " on one line; "," and ": " with indent),
// dicts in insertion order, floats as float.__repr__ (1.0, 1e-05, NaN,
// Infinity), ints as ints, and strings escaped as json's py_encode_basestring
// (ensure_ascii=False) or py_encode_basestring_ascii (ensure_ascii=True) do.
// lm-eval's output files are json.dumps text, and researchers diff ours
// against them; Go's encoding/json differs in every one of these points.
package pyjson

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
)

// Dict is a Python dict: string keys in insertion order. Setting a key it
// already holds replaces the value in place, as dict.update does.
type Dict struct {
	keys   []string
	values map[string]any
}

// NewDict is a Dict of alternating keys and values, in that order.
func NewDict(kv ...any) *Dict {
	d := &Dict{values: make(map[string]any, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

// Set sets k to v, appending k if it is new.
func (d *Dict) Set(k string, v any) *Dict {
	if d.values == nil {
		d.values = map[string]any{}
	}
	if _, ok := d.values[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.values[k] = v
	return d
}

// Get is k's value.
func (d *Dict) Get(k string) (any, bool) {
	v, ok := d.values[k]
	return v, ok
}

// Keys are the keys in insertion order.
func (d *Dict) Keys() []string { return slices.Clone(d.keys) }

// Len is the number of keys.
func (d *Dict) Len() int { return len(d.keys) }

// Dumps is json.dumps(v, ensure_ascii=False).
func Dumps(v any) ([]byte, error) {
	e := encoder{indent: -1}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.b, nil
}

// DumpsIndent is json.dumps(v, indent=indent, ensure_ascii=False).
func DumpsIndent(v any, indent int) ([]byte, error) {
	e := encoder{indent: max(indent, 0)}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.b, nil
}

// DumpsIndentASCII is json.dumps(v, indent=indent) with ensure_ascii's
// default, True: every non-ASCII rune escaped, as transformers'
// to_json_string writes config.json (with sort_keys=True, which Go maps get).
func DumpsIndentASCII(v any, indent int) ([]byte, error) {
	e := encoder{indent: max(indent, 0), ascii: true}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.b, nil
}

// AppendFloat appends json.dumps's text of a Python float: float.__repr__,
// and NaN, Infinity, -Infinity for the non-finite values (allow_nan=True).
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return append(b, pyfloat.Repr(f)...)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as json.dumps(s, ensure_ascii=False) does:
// '"' and '\\' escaped, \b \f \n \r \t by name, the other C0 controls as
// lowercase \u00XX; everything else (DEL, non-ASCII, U+2028, '<', '&')
// verbatim. Invalid UTF-8 (which a Python str cannot hold) becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(append(b, s[start:i]...), "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = appendEscape(append(b, s[start:i]...), rune(c))
		i++
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// AppendASCIIString appends s quoted as json.dumps(s, ensure_ascii=True)
// does: AppendString's escapes, and every rune outside ' '..'~' as lowercase
// \uXXXX, a UTF-16 surrogate pair above the BMP.
func AppendASCIIString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r < 0x20 || r == '"' || r == '\\':
			b = appendEscape(b, r)
		case r <= '~':
			b = append(b, byte(r))
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			b = appendU4(appendU4(b, r1), r2)
		default:
			b = appendU4(b, r)
		}
	}
	return append(b, '"')
}

// appendEscape writes a C0 control, '"' or '\\' as json's ESCAPE_DCT does.
func appendEscape(b []byte, r rune) []byte {
	switch r {
	case '"':
		return append(b, `\"`...)
	case '\\':
		return append(b, `\\`...)
	case '\b':
		return append(b, `\b`...)
	case '\f':
		return append(b, `\f`...)
	case '\n':
		return append(b, `\n`...)
	case '\r':
		return append(b, `\r`...)
	case '\t':
		return append(b, `\t`...)
	}
	return appendU4(b, r)
}

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// encoder is json.JSONEncoder; indent < 0 is indent=None (one line), ascii
// is ensure_ascii.
type encoder struct {
	b      []byte
	indent int
	ascii  bool
}

func (e *encoder) string(s string) {
	if e.ascii {
		e.b = AppendASCIIString(e.b, s)
	} else {
		e.b = AppendString(e.b, s)
	}
}

func (e *encoder) newline(depth int) {
	e.b = append(e.b, '\n')
	for range e.indent * depth {
		e.b = append(e.b, ' ')
	}
}

// item starts a container's item: the separator before every item but the
// first, then the newline and indentation when indenting.
func (e *encoder) item(i, depth int) {
	if i > 0 {
		e.b = append(e.b, ',')
		if e.indent < 0 {
			e.b = append(e.b, ' ')
		}
	}
	if e.indent >= 0 {
		e.newline(depth + 1)
	}
}

func (e *encoder) close(c byte, depth int) {
	if e.indent >= 0 {
		e.newline(depth)
	}
	e.b = append(e.b, c)
}

func (e *encoder) value(v any, depth int) error {
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case bool:
		e.b = strconv.AppendBool(e.b, x)
	case string:
		e.string(x)
	case float64:
		e.b = AppendFloat(e.b, x)
	case int:
		e.b = strconv.AppendInt(e.b, int64(x), 10)
	case int64:
		e.b = strconv.AppendInt(e.b, x, 10)
	case uint64:
		e.b = strconv.AppendUint(e.b, x, 10)
	case json.Number:
		return e.number(x)
	case *Dict:
		return e.dict(x, depth)
	case []any:
		return e.list(len(x), func(i int) any { return x[i] }, depth)
	case []string:
		return e.list(len(x), func(i int) any { return x[i] }, depth)
	default:
		return e.reflected(reflect.ValueOf(v), depth)
	}
	return nil
}

// number writes a decoded JSON number as Python's json.loads typed it: an
// int when the text has no '.', 'e' or 'E', else a float (1e400 is inf).
func (e *encoder) number(n json.Number) error {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		digits := strings.TrimPrefix(s, "-")
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return fmt.Errorf("number %q is not JSON", s)
		}
		if strings.Trim(digits, "0") == "" {
			s = "0" // Python's int -0 is 0
		}
		e.b = append(e.b, s...)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return fmt.Errorf("number %q: %w", s, err)
	}
	e.b = AppendFloat(e.b, f)
	return nil
}

func (e *encoder) dict(d *Dict, depth int) error {
	if d == nil {
		e.b = append(e.b, "null"...)
		return nil
	}
	if len(d.keys) == 0 {
		e.b = append(e.b, "{}"...)
		return nil
	}
	e.b = append(e.b, '{')
	for i, k := range d.keys {
		e.item(i, depth)
		e.string(k)
		e.b = append(e.b, ": "...)
		if err := e.value(d.values[k], depth+1); err != nil {
			return fmt.Errorf("%q: %w", k, err)
		}
	}
	e.close('}', depth)
	return nil
}

func (e *encoder) list(n int, at func(int) any, depth int) error {
	if n == 0 {
		e.b = append(e.b, "[]"...)
		return nil
	}
	e.b = append(e.b, '[')
	for i := range n {
		e.item(i, depth)
		if err := e.value(at(i), depth+1); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	e.close(']', depth)
	return nil
}

// reflected writes the remaining kinds: other ints and floats, slices, and
// string-keyed Go maps, whose keys have no order of their own and are
// written sorted. A nil slice or map is the empty list or dict (Python has
// no nil container); a nil pointer is null.
func (e *encoder) reflected(rv reflect.Value, depth int) error {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = strconv.AppendInt(e.b, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.b = strconv.AppendUint(e.b, rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.b = AppendFloat(e.b, rv.Float())
	case reflect.Bool:
		e.b = strconv.AppendBool(e.b, rv.Bool())
	case reflect.String:
		e.string(rv.String())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			e.b = append(e.b, "null"...)
			return nil
		}
		return e.value(rv.Elem().Interface(), depth)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			e.b = append(e.b, "[]"...)
			return nil
		}
		return e.list(rv.Len(), func(i int) any { return rv.Index(i).Interface() }, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("cannot write a map keyed by %s as a JSON object", rv.Type().Key())
		}
		d := &Dict{values: make(map[string]any, rv.Len())}
		for _, k := range rv.MapKeys() {
			d.values[k.String()] = rv.MapIndex(k).Interface()
			d.keys = append(d.keys, k.String())
		}
		slices.Sort(d.keys)
		return e.dict(d, depth)
	default:
		return fmt.Errorf("cannot write %T as JSON", rv.Interface())
	}
	return nil
}
