package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// ReadParquet decodes a Parquet file holding string columns "question" and
// "answer" (the Hugging Face openai/gsm8k layout); other columns and any column
// order are fine. name is used in errors only.
func ReadParquet(name string, r io.ReaderAt, size int64) ([]Problem, error) {
	rows, err := readParquetRows(name, r, size, gsm8kColumns)
	if err == nil {
		err = checkStrings(name, rows, gsm8kColumns)
	}
	if err != nil {
		return nil, err
	}
	return gsm8kProblems(name, rows), nil
}

func readParquetFile(path string, strs []string) (fileRows, error) {
	fh, size, err := openSized(path)
	if err != nil {
		return fileRows{}, err
	}
	defer fh.Close()
	return readParquetRows(path, fh, size, strs)
}

// readParquetRows reconstructs every row with parquet-go's schema-driven
// reconstruction, which keeps NULLs as nil and nested lists and structs as
// []any and map[string]any. The columns of strs are checked in the schema
// first: present, top-level, not repeated, and text. (parquet-go's
// GenericReader into a struct of strings would quietly turn NULL, INT64 or a
// missing column into strings; NULLs and UTF-8 are checkStrings' part.)
func readParquetRows(name string, r io.ReaderAt, size int64, strs []string) (_ fileRows, err error) {
	defer recoverCorrupt(name, &err)
	f, err := OpenParquet(name, r, size)
	if err != nil {
		return fileRows{}, err
	}
	if err := checkParquetSizes(name, r, size, f); err != nil {
		return fileRows{}, err
	}
	for _, c := range strs {
		if _, err := stringColumn(f, c); err != nil {
			return fileRows{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	rows := fileRows{docs: make([]Doc, 0, min(f.NumRows(), 1<<16))}
	schema := f.Schema()
	rows.fields = parquetFields(schema.Fields())
	if err := checkColumns(name, len(rows.fields)); err != nil {
		return fileRows{}, err
	}
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		if err := appendRowGroup(&rows, schema, rg, buf); err != nil {
			return fileRows{}, fmt.Errorf("%s: row %d: %w", name, len(rows.docs), err)
		}
	}
	if int64(len(rows.docs)) != f.NumRows() {
		return fileRows{}, fmt.Errorf("%s: %w: %d rows but the footer says %d", name, ErrNotParquet, len(rows.docs), f.NumRows())
	}
	return rows, nil
}

func appendRowGroup(rows *fileRows, schema *parquet.Schema, rg parquet.RowGroup, buf []parquet.Row) error {
	rr := rg.Rows()
	defer rr.Close()
	for {
		n, err := rr.ReadRows(buf)
		for _, r := range buf[:n] {
			d := Doc{}
			if err := schema.Reconstruct(&d, r); err != nil {
				return err
			}
			rows.docs = append(rows.docs, normalizeValues(d).(Doc))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("read rows: no progress")
		}
	}
}

// parquetFields is the order of Parquet columns, a struct's (or a list of
// structs') own fields included, as the file's schema lists them.
func parquetFields(fs []parquet.Field) Fields {
	out := make(Fields, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.Name(), Sub: parquetSub(f)}
	}
	return out
}

// parquetSub is a group column's fields: a struct's own, those of a LIST's
// element (group (LIST) > repeated group > element, or the older two-level
// form), none for a MAP (its keys are data) or a leaf.
func parquetSub(f parquet.Field) Fields {
	if f.Leaf() {
		return nil
	}
	var lt format.LogicalTypeValue
	if l := f.Type().LogicalType(); l != nil {
		lt = l.Value
	}
	switch lt.(type) {
	case *format.MapType:
		return nil
	case *format.ListType:
		inner := f.Fields()
		if len(inner) != 1 {
			return nil
		}
		if el := inner[0].Fields(); !inner[0].Leaf() && len(el) == 1 {
			return parquetSub(el[0])
		}
		return parquetSub(inner[0])
	}
	return parquetFields(f.Fields())
}

// normalizeValues maps the integer and float widths readers produce onto
// int64 and float64, so templates see one type per kind.
func normalizeValues(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeValues(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeValues(e)
		}
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	}
	return v
}

// OpenParquet opens a Parquet file after checking the magic bytes and the footer
// length itself: parquet-go's errors do not name the file, and a corrupt footer
// length would otherwise make it allocate up to 4 GiB before failing.
func OpenParquet(name string, r io.ReaderAt, size int64) (f *parquet.File, err error) {
	const magicLen, tailLen = 4, 8 // "PAR1" | ... | footer | footer length (4) | "PAR1"
	if size < magicLen+tailLen {
		return nil, fmt.Errorf("%s: %w: %d bytes is too small (no magic bytes / footer)", name, ErrNotParquet, size)
	}
	var head, tail [magicLen]byte
	var foot [tailLen]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("%s: read header: %w", name, err)
	}
	if _, err := r.ReadAt(foot[:], size-tailLen); err != nil {
		return nil, fmt.Errorf("%s: read footer: %w", name, err)
	}
	copy(tail[:], foot[4:])
	if string(head[:]) != "PAR1" {
		return nil, fmt.Errorf("%s: %w: invalid magic header %q (want \"PAR1\")", name, ErrNotParquet, head[:])
	}
	if string(tail[:]) != "PAR1" {
		return nil, fmt.Errorf("%s: %w: invalid magic footer %q (want \"PAR1\"; truncated or encrypted file?)", name, ErrNotParquet, tail[:])
	}
	footerLen := int64(binary.LittleEndian.Uint32(foot[:4]))
	if footerLen > size-magicLen-tailLen {
		return nil, fmt.Errorf("%s: %w: footer length %d exceeds the file (%d bytes)", name, ErrNotParquet, footerLen, size)
	}
	defer recoverCorrupt(name, &err)
	f, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrNotParquet, err)
	}
	if f.NumRows() < 0 {
		return nil, fmt.Errorf("%s: %w: negative row count %d in footer", name, ErrNotParquet, f.NumRows())
	}
	return f, nil
}

// recoverCorrupt turns a parquet-go panic into an error naming the file:
// parquet-go is not hardened against every corrupt footer or page (fuzzing
// found, e.g., a MAP annotation on a leaf column panicking in Type().Kind()),
// and a damaged file must fail the load, not crash the harness.
func recoverCorrupt(name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: %w: corrupt file (%v)", name, ErrNotParquet, p)
	}
}

// stringColumn finds a top-level, non-repeated column holding text.
func stringColumn(f *parquet.File, name string) (*parquet.Column, error) {
	root := f.Root()
	c := root.Column(name)
	if c == nil {
		found := make([]string, 0, len(root.Columns()))
		for _, x := range root.Columns() {
			found = append(found, fmt.Sprintf("%q", x.Name()))
		}
		return nil, fmt.Errorf("column %q: %w (columns found: %s)", name, ErrMissingColumn, strings.Join(found, ", "))
	}
	if !c.Leaf() {
		return nil, fmt.Errorf("column %q: %w: it is a group (nested) column", name, ErrColumnType)
	}
	if c.Repeated() {
		return nil, fmt.Errorf("column %q: %w: it is a repeated (list) column", name, ErrColumnType)
	}
	if _, ok := isStringType(c.Type()); !ok {
		return nil, fmt.Errorf("column %q: %w: type %s, expected string (BYTE_ARRAY with UTF8/STRING)", name, ErrColumnType, fileColumnTypes(f)[name])
	}
	return c, nil
}

// isStringType accepts BYTE_ARRAY annotated as UTF8/STRING or ENUM, and plain
// BYTE_ARRAY (some writers omit the annotation; its values are UTF-8 checked
// when read). It returns a description of the type for errors.
func isStringType(t parquet.Type) (string, bool) {
	desc := t.Kind().String()
	lt, ct := t.LogicalType(), t.ConvertedType()
	if lt != nil && lt.Value != nil {
		desc += " (" + lt.String() + ")"
	} else if ct != nil {
		desc += " (" + convertedTypeName(*ct) + ")"
	}
	if t.Kind() != parquet.ByteArray {
		return desc, false
	}
	if lt != nil && lt.Value != nil {
		switch lt.Value.(type) {
		case *format.StringType, *format.EnumType:
			return desc, true
		}
		return desc, false
	}
	if ct != nil {
		return desc, *ct == deprecated.UTF8 || *ct == deprecated.Enum
	}
	return desc, true
}

// convertedTypeNames are the Parquet ConvertedType enum's names, by value.
var convertedTypeNames = []string{"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
	"UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"}

func convertedTypeName(ct deprecated.ConvertedType) string {
	if ct >= 0 && int(ct) < len(convertedTypeNames) {
		return convertedTypeNames[ct]
	}
	return fmt.Sprintf("converted type %d", int32(ct))
}

// fileColumnTypes describes each top-level column as the file's own schema
// states it ("BYTE_ARRAY (UTF8)", "INT64", "group"), before parquet-go fills in
// a logical type from the converted one.
func fileColumnTypes(f *parquet.File) map[string]string {
	schema := f.Metadata().Schema
	out := map[string]string{}
	if len(schema) == 0 {
		return out
	}
	i := 1
	for range schema[0].NumChildren.V {
		if i >= len(schema) {
			break
		}
		el := schema[i]
		out[el.Name] = describeElement(el)
		i = skipSubtree(schema, i)
	}
	return out
}

func describeElement(el format.SchemaElement) string {
	if el.NumChildren.Valid && el.NumChildren.V > 0 {
		return "group"
	}
	desc := "unknown type"
	if el.Type.Valid {
		desc = el.Type.V.String()
	}
	var notes []string
	if el.ConvertedType.Valid {
		notes = append(notes, convertedTypeName(el.ConvertedType.V))
	}
	if el.LogicalType.Value != nil {
		notes = append(notes, el.LogicalType.String())
	}
	if len(notes) > 0 {
		desc += " (" + strings.Join(notes, ", ") + ")"
	}
	if el.RepetitionType.Valid && el.RepetitionType.V == format.Repeated {
		desc = "repeated " + desc
	}
	return desc
}

// skipSubtree returns the index after the element at i and all its descendants
// (the schema is a depth-first flattening).
func skipSubtree(schema []format.SchemaElement, i int) int {
	n := schema[i].NumChildren.V
	i++
	for range n {
		if i >= len(schema) {
			return i
		}
		i = skipSubtree(schema, i)
	}
	return i
}
