package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Fields is a doc's key order as Hugging Face datasets keeps it, nested
// structs included: the file's columns in schema order (the Parquet or Arrow
// schema's, the CSV header's, a JSONL file's first-line order) and, for a
// struct column or a list of structs, that struct's own fields in order. A
// datasets row is a Python dict in this order all the way down, and lm-eval's
// json.dumps of it (samples' doc, doc_hash) keeps it; EncodeDoc writes it.
type Fields []Field

// Field is one key, with the fields of its struct value (or of its list's
// struct elements); Sub is nil for any other value.
type Field struct {
	Name string
	Sub  Fields
}

// FieldsOf is flat fields in the order of names.
func FieldsOf(names ...string) Fields {
	out := make(Fields, len(names))
	for i, n := range names {
		out[i] = Field{Name: n}
	}
	return out
}

// Names are the top-level names in order.
func (fs Fields) Names() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func (fs Fields) find(name string) (Field, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// forDoc is the key order of one object: fs's names that m holds, in fs's
// order, then the keys fs does not name, sorted (their nested keys sorted
// too).
// It is linear in the keys (a row of 200,000 columns took minutes when each
// key was looked up in a list).
func (fs Fields) forDoc(m map[string]any) Fields {
	out := make(Fields, 0, len(m))
	named := make(map[string]bool, len(fs))
	for _, f := range fs {
		if _, ok := m[f.Name]; ok && !named[f.Name] {
			out = append(out, f)
		}
		named[f.Name] = true
	}
	var extra []string
	for k := range m {
		if !named[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return append(out, FieldsOf(extra...)...)
}

// MaxColumns bounds the columns of a data file (and the keys of one JSONL
// row): real datasets have tens.
const MaxColumns = 10_000

// checkColumns refuses more than MaxColumns columns, naming where.
func checkColumns(where string, n int) error {
	if n > MaxColumns {
		return fmt.Errorf("%s: %d columns: %w (at most %d)", where, n, ErrTooLarge, MaxColumns)
	}
	return nil
}

// MarshalJSON writes a flat field as its name and a struct field as
// {"name": [its fields]}, so problems.jsonl's doc_columns of flat files keep
// the plain list of names earlier runs wrote.
func (f Field) MarshalJSON() ([]byte, error) {
	if f.Sub == nil {
		return json.Marshal(f.Name)
	}
	return json.Marshal(map[string]Fields{f.Name: f.Sub})
}

// UnmarshalJSON reads MarshalJSON's two forms.
func (f *Field) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		*f = Field{}
		return json.Unmarshal(b, &f.Name)
	}
	var m map[string]Fields
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if len(m) != 1 {
		return fmt.Errorf("a nested field is one {name: [fields]} entry, got %d keys", len(m))
	}
	for k, v := range m {
		*f = Field{Name: k, Sub: v}
		if f.Sub == nil {
			f.Sub = Fields{}
		}
	}
	return nil
}
