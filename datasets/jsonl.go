package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseJSONL decodes GSM8K-style JSON Lines: one object per line with string
// fields "question" and "answer" (other keys are ignored). name is used in
// errors only ("file:line: ..."; lines are 1-based). A leading UTF-8 BOM is
// dropped and CRLF line ends are accepted. A bad line fails the whole file:
// nothing is skipped or repaired, and an empty file is an error.
func ParseJSONL(name string, data []byte) ([]Problem, error) {
	rows, err := parseJSONLRecords(name, data, []string{"question", "answer"})
	if err != nil {
		return nil, err
	}
	out := make([]Problem, len(rows))
	for i, r := range rows {
		out[i] = newProblem(name, i, r[0], r[1])
	}
	return out, nil
}

// ParseFewshotJSONL decodes few-shot exemplars, one {"question", "target"}
// object a line (the format of ../shared/data/fewshot/*.jsonl and of lm-eval's
// fewshot_config samples). The target is used verbatim.
func ParseFewshotJSONL(name string, data []byte) ([]Problem, error) {
	rows, err := parseJSONLRecords(name, data, []string{"question", "target"})
	if err != nil {
		return nil, err
	}
	out := make([]Problem, len(rows))
	for i, r := range rows {
		out[i] = Problem{ID: fmt.Sprint(i), Index: i, Row: i, Source: name,
			Question: r[0], Target: r[1], TargetValid: true, Doc: Doc{"question": r[0], "target": r[1]}}
	}
	return out, nil
}

// parseJSONLRecords returns, per line, the string values of fields in order.
func parseJSONLRecords(name string, data []byte, fields []string) ([][]string, error) {
	var rows [][]string
	err := eachJSONLLine(name, data, func(line []byte) error {
		row, err := decodeJSONLLine(line, fields)
		if err == nil {
			rows = append(rows, row)
		}
		return err
	})
	return rows, err
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

func decodeJSONLLine(line []byte, fields []string) ([]string, error) {
	if !utf8.Valid(line) {
		// encoding/json would quietly turn bad bytes into U+FFFD.
		return nil, ErrInvalidUTF8
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if obj == nil { // the line was the literal null
		return nil, fmt.Errorf("%w: line is null, want an object", ErrSyntax)
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		raw, ok := obj[f]
		if !ok {
			return nil, fmt.Errorf("key %q: %w (keys found: %s)", f, ErrMissingColumn, keyList(obj))
		}
		if string(raw) == "null" {
			return nil, fmt.Errorf("key %q: %w", f, ErrNull)
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("key %q: %w: got %s", f, ErrColumnType, jsonKind(raw))
		}
	}
	return out, nil
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
