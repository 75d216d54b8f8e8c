package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// maxNullRowsListed bounds how many NULL row numbers one error lists.
const maxNullRowsListed = 10

// ReadParquet decodes a Parquet file holding string columns "question" and
// "answer" (the Hugging Face openai/gsm8k layout); other columns and any column
// order are fine. name is used in errors only.
//
// parquet-go's GenericReader would quietly turn NULL, INT64 or a missing column
// into strings, so the schema is checked here and values are read column by
// column through the page API, where NULLs stay visible.
func ReadParquet(name string, r io.ReaderAt, size int64) ([]Problem, error) {
	cols, err := readParquetColumns(name, r, size, []string{"question", "answer"})
	if err != nil {
		return nil, err
	}
	out := make([]Problem, len(cols[0]))
	for i := range out {
		out[i] = newProblem(name, i, cols[0][i], cols[1][i])
	}
	return out, nil
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

// readParquetColumns returns the values of the named top-level string columns.
func readParquetColumns(name string, r io.ReaderAt, size int64, names []string) (_ [][]string, err error) {
	defer recoverCorrupt(name, &err)
	f, err := OpenParquet(name, r, size)
	if err != nil {
		return nil, err
	}
	cols := make([]*parquet.Column, len(names))
	for i, n := range names {
		c, err := stringColumn(f, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		cols[i] = c
	}
	out := make([][]string, len(names))
	for i, c := range cols {
		vals, err := readStringColumn(c, f.NumRows())
		if err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", name, names[i], err)
		}
		out[i] = vals
	}
	return out, nil
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

// readStringColumn reads every value of a flat column across row groups. It
// fails on NULLs (listing the first rows that have one), on invalid UTF-8, and
// when the value count disagrees with the footer's row count.
func readStringColumn(c *parquet.Column, numRows int64) (vals []string, err error) {
	pages := c.Pages()
	defer pages.Close()
	vals = make([]string, 0, min(numRows, 1<<16))
	var nullRows []string
	nulls := 0
	buf := make([]parquet.Value, 512)
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("row %d: read page: %w", len(vals), err)
		}
		if err := readPageValues(page, buf, &vals, &nulls, &nullRows); err != nil {
			parquet.Release(page)
			return nil, err
		}
		parquet.Release(page)
	}
	if nulls > 0 {
		more := ""
		if nulls > len(nullRows) {
			more = fmt.Sprintf(" and %d more", nulls-len(nullRows))
		}
		return nil, fmt.Errorf("%w in rows %s%s (%d NULLs)", ErrNull, strings.Join(nullRows, ", "), more, nulls)
	}
	if int64(len(vals)) != numRows {
		return nil, fmt.Errorf("%w: %d values but the footer says %d rows", ErrNotParquet, len(vals), numRows)
	}
	return vals, nil
}

func readPageValues(page parquet.Page, buf []parquet.Value, vals *[]string, nulls *int, nullRows *[]string) error {
	rd := page.Values()
	for {
		n, err := rd.ReadValues(buf)
		for _, v := range buf[:n] {
			row := len(*vals)
			if v.IsNull() {
				*nulls++
				if len(*nullRows) < maxNullRowsListed {
					*nullRows = append(*nullRows, fmt.Sprint(row))
				}
				*vals = append(*vals, "")
				continue
			}
			b := v.ByteArray()
			if !utf8.Valid(b) {
				return fmt.Errorf("row %d: %w", row, ErrInvalidUTF8)
			}
			*vals = append(*vals, string(b)) // copies out of the page buffer
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("row %d: read values: %w", len(*vals), err)
		}
		if n == 0 {
			return fmt.Errorf("row %d: read values: no progress", len(*vals))
		}
	}
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
