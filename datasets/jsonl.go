package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	return readJSONLDocs(name, bytes.NewReader(data), strs)
}

// readJSONLDocs is parseJSONLDocs reading from r a line at a time.
func readJSONLDocs(name string, r io.Reader, strs []string) (fileRows, error) {
	var rows fileRows
	err := eachJSONLLine(name, r, func(line []byte) error {
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

// maxJSONLLineBytes bounds one line while it is read: a row holds strings of
// at most MaxFieldBytes, and a file used to be read whole before that was
// checked (a 600 MB line took 2.9 GB and 26 s).
const maxJSONLLineBytes = 16 * MaxFieldBytes

// eachJSONLLine calls fn with every line of a JSON Lines file (a leading
// UTF-8 BOM dropped, CRLF accepted), reading one line at a time, and
// prefixes its error with "file:line". An empty file, a blank line before
// the end and a line over maxJSONLLineBytes are errors.
func eachJSONLLine(name string, r io.Reader, fn func(line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	blank := 0 // the first blank line since the last row, if any
	rows := 0
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, maxJSONLLineBytes)
		if err == io.EOF && line == nil {
			break
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			if blank == 0 {
				blank = lineNo
			}
			continue
		}
		if blank > 0 {
			// A hole in the middle usually means a botched concatenation; say so
			// rather than renumber the rows after it. (Trailing blank lines end
			// the file.)
			return fmt.Errorf("%s:%d: empty line: %w", name, blank, ErrSyntax)
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		rows++
	}
	if rows == 0 {
		return fmt.Errorf("%s: empty file (%w)", name, ErrNoRows)
	}
	return nil
}

// readLine reads one line without its "\n", refusing one longer than max
// before reading past it; io.EOF comes with the last line when the file
// does not end in a newline, and alone (nil line) after the last.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			return nil, fmt.Errorf("%w: a line of more than %d bytes (a row's strings may hold %d bytes each)", ErrTooLarge, max, MaxFieldBytes)
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			return line[:len(line)-1], nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(line) == 0 {
				return nil, io.EOF
			}
			return line, io.EOF
		default:
			return nil, err
		}
	}
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
	// Counted before decoding: a row of a million keys took seconds to decode.
	if err := checkColumns("row", topLevelKeys(line)); err != nil {
		return nil, err
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

// topLevelKeys counts the keys of the object a JSON line holds (the colons
// outside strings at depth one) in one pass over its bytes; what it counts
// in invalid JSON does not matter, the decoder refuses that next.
func topLevelKeys(line []byte) int {
	n, depth, inString, escaped := 0, 0, false, false
	for _, c := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ':' && depth == 1:
			n++
		}
	}
	return n
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
		seen := map[string]bool{}
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
			if !seen[k] {
				seen[k] = true
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
