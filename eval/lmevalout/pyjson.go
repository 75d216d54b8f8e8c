package lmevalout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// orderedObject is a JSON object with its keys in the order they were read,
// as a Python dict keeps them.
type orderedObject struct {
	keys   []string
	values map[string]any
}

// decodeOrdered decodes JSON keeping object key order (orderedObject) and
// number text (json.Number), so a doc re-encodes as Python wrote it.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := t.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &orderedObject{values: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.values[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.values[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return t, nil
}

// pyDumps is Python's json.dumps(v, indent=2, ensure_ascii=False): the text
// lm-eval hashes for doc_hash. Objects keep their key order; numbers keep
// their int/float kind (json.Number text with '.', 'e' or 'E' is a float).
func pyDumps(v any) (string, error) {
	var sb strings.Builder
	if err := pyEncode(&sb, v, 0); err != nil {
		return "", err
	}
	return sb.String(), nil
}

func pyEncode(sb *strings.Builder, v any, depth int) error {
	newline := func(d int) { sb.WriteByte('\n'); sb.WriteString(strings.Repeat("  ", d)) }
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case bool:
		sb.WriteString(strconv.FormatBool(x))
	case string:
		pyString(sb, x)
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("number %s: %w", s, err)
			}
			sb.WriteString(pyFloat(f))
		} else {
			sb.WriteString(s)
		}
	case float64:
		sb.WriteString(pyFloat(x))
	case int:
		sb.WriteString(strconv.Itoa(x))
	case int64:
		sb.WriteString(strconv.FormatInt(x, 10))
	case []any:
		if len(x) == 0 {
			sb.WriteString("[]")
			return nil
		}
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			newline(depth + 1)
			if err := pyEncode(sb, e, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		sb.WriteByte(']')
	case *orderedObject:
		if len(x.keys) == 0 {
			sb.WriteString("{}")
			return nil
		}
		sb.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			newline(depth + 1)
			pyString(sb, k)
			sb.WriteString(": ")
			if err := pyEncode(sb, x.values[k], depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		sb.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode %T as Python JSON", v)
	}
	return nil
}

// pyString is json.dumps's string with ensure_ascii=False: only '"', '\\'
// and the C0 controls are escaped; \b \f \n \r \t by name, others as \u00XX.
func pyString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(sb, `\u%04x`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}

// pyFloat is Python's float.__repr__ as json.dumps writes it: the shortest
// round-tripping digits, positional for exponents -4..15 (always with a
// fraction), else d.ddde±XX; non-finite values as NaN, Infinity, -Infinity.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	// Go's shortest 'e' form is Python's outside -4..15 (1e-05, 1.5e+16);
	// inside, Go's shortest 'f' form is, once it has a fraction.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	if exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:]); exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// MarshalJSON writes the object with its keys in their read order.
func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := marshal(k, "")
		if err != nil {
			return nil, err
		}
		vb, err := marshal(o.values[k], "")
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
