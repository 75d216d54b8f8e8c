package datasets

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// DocColumns lists the columns of docs: the names in `order` first (a file's
// schema order), then any other key the docs have, sorted.
func DocColumns(docs []Doc, order []string) []string {
	out := slices.Clone(order)
	var extra []string
	for _, d := range docs {
		for k := range d {
			if !slices.Contains(out, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// WriteDocsJSONL writes one JSON object per doc (EncodeDoc): the keys, and
// those of nested structs, in fields' order, then any others sorted; NULLs as
// null. A float is written as Python's json.dumps writes it (1.0, 1e-05, NaN,
// Infinity), so it reads back as a float, here and in Python.
func WriteDocsJSONL(w io.Writer, docs []Doc, fields Fields) error {
	for i, d := range docs {
		b, err := EncodeDoc(d, fields)
		if err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// appendJSONValue writes v as json.dumps does its values (strings, floats
// with NaN, Infinity and -Infinity), without spaces; an object's keys, and
// those of the objects inside it, in fields' order (Fields.forDoc; nil sorts
// them), the elements of a list each with the same fields.
func appendJSONValue(b []byte, v any, fields Fields) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return pyjson.AppendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return pyjson.AppendFloat(b, x), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSONValue(b, e, fields); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		for i, f := range fields.forDoc(x) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(pyjson.AppendString(b, f.Name), ':')
			var err error
			if b, err = appendJSONValue(b, x[f.Name], f.Sub); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("value of type %T cannot be written", v)
}

// WriteDocsParquet writes docs as one Parquet row group per file, every column
// optional (NULL-able) and typed from its values: strings, 64-bit integers,
// doubles, booleans, lists and structs of those, as the loaders read them.
// parquet-go orders a struct's fields by name, so columns come out sorted.
func WriteDocsParquet(w io.Writer, docs []Doc, codec compress.Codec) error {
	group := parquet.Group{}
	for _, c := range DocColumns(docs, nil) {
		var vals []any
		for _, d := range docs {
			vals = append(vals, d[c])
		}
		n, err := nodeOf(vals)
		if err != nil {
			return fmt.Errorf("column %q: %w", c, err)
		}
		group[c] = n
	}
	schema := parquet.NewSchema("doc", group)
	pw := parquet.NewGenericWriter[map[string]any](w, schema, parquet.Compression(codec))
	rows := make([]map[string]any, len(docs))
	for i, d := range docs {
		rows[i] = present(d).(map[string]any)
	}
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// present turns every non-NULL value into a pointer: parquet-go writes the
// zero value of an optional field (0, "", false) as NULL, a nil pointer only
// as NULL.
func present(v any) any {
	switch x := v.(type) {
	case string:
		return &x
	case int64:
		return &x
	case float64:
		return &x
	case bool:
		return &x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = present(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = present(e)
		}
		return out
	}
	return v
}

// nodeOf is the optional Parquet node that holds every value in vals (nil
// values aside); a column of NULLs only is written as strings.
func nodeOf(vals []any) (parquet.Node, error) {
	var kind string
	var elems []any
	fields := map[string][]any{}
	for _, v := range vals {
		k := ""
		switch x := v.(type) {
		case nil:
			continue
		case string:
			k = "string"
		case int64:
			k = "int64"
		case float64:
			k = "float64"
		case bool:
			k = "bool"
		case []any:
			k = "list"
			elems = append(elems, x...)
		case map[string]any:
			k = "struct"
		default:
			return nil, fmt.Errorf("value of type %T cannot be written", v)
		}
		if kind != "" && kind != k {
			return nil, fmt.Errorf("mixed value types %s and %s", kind, k)
		}
		kind = k
	}
	if kind == "struct" {
		for _, v := range vals {
			if m, ok := v.(map[string]any); ok {
				for _, name := range DocColumns([]Doc{m}, nil) {
					fields[name] = nil
				}
			}
		}
		for name := range fields {
			for _, v := range vals {
				if m, ok := v.(map[string]any); ok {
					fields[name] = append(fields[name], m[name])
				}
			}
		}
	}
	switch kind {
	case "", "string":
		return parquet.Optional(parquet.String()), nil
	case "int64":
		return parquet.Optional(parquet.Int(64)), nil
	case "float64":
		return parquet.Optional(parquet.Leaf(parquet.DoubleType)), nil
	case "bool":
		return parquet.Optional(parquet.Leaf(parquet.BooleanType)), nil
	case "list":
		e, err := nodeOf(elems)
		if err != nil {
			return nil, fmt.Errorf("list element: %w", err)
		}
		return parquet.Optional(parquet.List(e)), nil
	}
	g := parquet.Group{}
	for name, fv := range fields {
		n, err := nodeOf(fv)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		g[name] = n
	}
	return parquet.Optional(g), nil
}
