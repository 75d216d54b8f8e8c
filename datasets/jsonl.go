package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseJSONL decodes GSM8K-style JSON Lines: one object per line with string
// fields "question" and "answer" (other keys are kept in the doc). name is
// used in errors only ("file:line: ..."; lines are 1-based). A leading UTF-8
// BOM is dropped and CRLF line ends are accepted. A bad line fails the whole
// file: nothing is skipped or repaired, and an empty file is an error.
func ParseJSONL(name string, data []byte) ([]Problem, error) {
	rows, err := parseJSONLDocs(name, data, gsm8kColumns)
	if err != nil {
		return nil, err
	}
	return gsm8kProblems(name, rows), nil
}

// ParseFewshotJSONL decodes few-shot exemplars, one {"question", "target"}
// object a line (the format of ../shared/data/fewshot/*.jsonl and of lm-eval's
// fewshot_config samples). The target is used verbatim.
func ParseFewshotJSONL(name string, data []byte) ([]Problem, error) {
	rows, err := parseJSONLDocs(name, data, fewshotColumns)
	if err != nil {
		return nil, err
	}
	return fewshotProblems(name, rows), nil
}

// parseJSONLDocs decodes one JSON object a line, every key kept; integral
// numbers become int64 and others float64. Each line must hold the keys of
// strs as strings. The field order is the first line's, nested objects'
// included.
func parseJSONLDocs(name string, data []byte, strs []string) (fileRows, error) {
	var rows fileRows
	err := eachJSONLLine(name, data, func(line []byte) error {
		d, err := decodeJSONLLine(line, strs)
		if err != nil {
			return err
		}
		if rows.docs == nil {
			rows.fields, _ = jsonFields(json.NewDecoder(bytes.NewReader(pyjson.Standard(line))))
		}
		rows.docs = append(rows.docs, d)
		return nil
	})
	if err != nil {
		return fileRows{}, err
	}
	return rows, nil
}

// eachJSONLLine calls fn with every line of a JSON Lines file (a leading
// UTF-8 BOM dropped, CRLF accepted) and prefixes its error with "file:line".
// An empty file, and a blank line before the end, are errors.
func eachJSONLLine(name string, data []byte, fn func(line []byte) error) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: empty file (%w)", name, ErrNoRows)
	}
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			if len(bytes.TrimSpace(data)) == 0 {
				break // trailing blank lines end the file
			}
			// A hole in the middle usually means a botched concatenation; say so
			// rather than renumber the rows after it.
			return fmt.Errorf("%s:%d: empty line: %w", name, lineNo, ErrSyntax)
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
	}
	return nil
}

// decodeJSONLLine decodes one line as a Doc after checking it is valid
// UTF-8 (encoding/json would quietly turn bad bytes into U+FFFD), one JSON
// object, and holds each key of strs as a string. NaN, Infinity and
// -Infinity are floats, as Python's json.loads reads what its json.dumps (and
// our convert) writes for them.
func decodeJSONLLine(line []byte, strs []string) (Doc, error) {
	if !utf8.Valid(line) {
		return nil, ErrInvalidUTF8
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(pyjson.Standard(line), &obj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if obj == nil { // the line was the literal null
		return nil, fmt.Errorf("%w: line is null, want an object", ErrSyntax)
	}
	for _, f := range strs {
		raw, ok := obj[f]
		if !ok {
			return nil, fmt.Errorf("key %q: %w (keys found: %s)", f, ErrMissingColumn, keyList(obj))
		}
		if string(raw) == "null" {
			return nil, fmt.Errorf("key %q: %w", f, ErrNull)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("key %q: %w: got %s", f, ErrColumnType, jsonKind(raw))
		}
	}
	return DecodeDoc(line)
}

// jsonFields reads one JSON value and returns the key order of the object it
// is, nested objects' included (for a list, that of its first object); nil
// for other values.
func jsonFields(dec *json.Decoder) (Fields, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	var out Fields
	switch t {
	case json.Delim('{'):
		out = Fields{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			sub, err := jsonFields(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := out.find(k); !dup {
				out = append(out, Field{Name: k, Sub: sub})
			}
		}
	case json.Delim('['):
		for dec.More() {
			sub, err := jsonFields(dec)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = sub
			}
		}
	default:
		return nil, nil
	}
	_, err = dec.Token() // the closing delimiter
	return out, err
}

func keyList(obj map[string]json.RawMessage) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, fmt.Sprintf("%q", k))
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

func jsonKind(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '{':
		return "an object"
	case b[0] == '[':
		return "an array"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
