package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// fileFormat is a data file's format, named by its extension.
type fileFormat string

const (
	formatParquet fileFormat = "parquet"
	formatJSONL   fileFormat = "jsonl"
	formatCSV     fileFormat = "csv"
	formatArrow   fileFormat = "arrow" // a Hugging Face datasets-cache Arrow stream or file
)

// formatOf names a data file's format from its extension ("" when it names
// none): the one place an extension picks a reader.
func formatOf(path string) fileFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return formatParquet
	case ".jsonl", ".ndjson":
		return formatJSONL
	case ".csv":
		return formatCSV
	case ".arrow":
		return formatArrow
	}
	return ""
}

// fileRows is one data file read whole: every row with every column, and the
// file's column order (see readFile).
type fileRows struct {
	docs []Doc
	// fields is the file's column order, nested structs' fields included, as
	// Hugging Face datasets keeps it (and so lm-eval's docs, and the
	// json.dumps behind its doc_hash): see Fields.
	fields Fields
}

// readFile reads one data file of any format this package knows: the one
// reader behind both the GSM8K problems (Load) and task docs (LoadDocs).
// strs names columns every row must hold as a non-NULL UTF-8 string (GSM8K's
// question and answer); each format refuses a file without them where it
// can say exactly where (Parquet: its schema, before any row; JSONL: the
// line), then checkStrings the same way for all. Every string is bounded by
// MaxFieldBytes. Errors start with the path.
func readFile(path string, strs []string) (fileRows, error) {
	var rows fileRows
	var err error
	switch formatOf(path) {
	case formatParquet:
		rows, err = readParquetFile(path, strs)
	case formatJSONL:
		rows, err = readTextFile(path, strs, readJSONLDocs)
	case formatCSV:
		rows, err = readTextFile(path, strs, func(name string, r io.Reader, _ []string) (fileRows, error) { return readCSVDocs(name, r) })
	case formatArrow:
		rows, err = readArrowDocs(path)
	default:
		return fileRows{}, fmt.Errorf("%s: %w (want .parquet, .jsonl, .csv or .arrow)", path, ErrFormat)
	}
	if err == nil {
		err = checkStrings(path, rows, strs)
	}
	if err == nil {
		err = checkFieldSizes(path, rows.docs)
	}
	if err != nil {
		return fileRows{}, err
	}
	return rows, nil
}

// checkStrings checks that every row holds each column of strs as a
// non-NULL, valid UTF-8 string, in the order strs names them: a missing
// column (listing the ones found), a column of another type, then the NULLs
// (listing the first rows that have one) or the first invalid UTF-8 value.
func checkStrings(name string, rows fileRows, strs []string) error {
	for _, c := range strs {
		if _, ok := rows.fields.find(c); !ok {
			found := make([]string, 0, len(rows.fields))
			for _, x := range rows.fields.Names() {
				found = append(found, fmt.Sprintf("%q", x))
			}
			return fmt.Errorf("%s: column %q: %w (columns found: %s)", name, c, ErrMissingColumn, strings.Join(found, ", "))
		}
		var nullRows []string
		nulls := 0
		for i, d := range rows.docs {
			switch v := d[c].(type) {
			case nil:
				nulls++
				if len(nullRows) < maxNullRowsListed {
					nullRows = append(nullRows, fmt.Sprint(i))
				}
			case string:
				if !utf8.ValidString(v) {
					return fmt.Errorf("%s: column %q: row %d: %w", name, c, i, ErrInvalidUTF8)
				}
			default:
				return fmt.Errorf("%s: column %q: %w: row %d is %s, expected string", name, c, ErrColumnType, i, valueKind(v))
			}
		}
		if nulls > 0 {
			more := ""
			if nulls > len(nullRows) {
				more = fmt.Sprintf(" and %d more", nulls-len(nullRows))
			}
			return fmt.Errorf("%s: column %q: %w in rows %s%s (%d NULLs)", name, c, ErrNull, strings.Join(nullRows, ", "), more, nulls)
		}
	}
	return nil
}

// maxNullRowsListed bounds how many NULL row numbers one error lists.
const maxNullRowsListed = 10

// MaxFieldBytes bounds one string in a row (a question, an answer, any
// column or nested value). Datasets come from the internet, and every prompt
// is tokenized, journaled and read back whole; no benchmark item comes near
// a mebibyte.
const MaxFieldBytes = 1 << 20

// checkFieldSizes refuses a row holding a string over MaxFieldBytes, naming
// the file, the row (0-based, as every row error here) and the value's key
// path.
func checkFieldSizes(path string, docs []Doc) error {
	for row, d := range docs {
		if key, n := largestString("", d); n > MaxFieldBytes {
			return fmt.Errorf("%s: row %d: %s of %d bytes: %w (at most %d bytes)", path, row, key, n, ErrTooLarge, MaxFieldBytes)
		}
	}
	return nil
}

// largestString finds the longest string value inside v and its key path.
func largestString(key string, v any) (string, int) {
	switch x := v.(type) {
	case string:
		return key, len(x)
	case map[string]any:
		best, n := "", -1
		for k, e := range x {
			if kk, m := largestString(strings.TrimPrefix(key+"."+k, "."), e); m > n {
				best, n = kk, m
			}
		}
		return best, n
	case []any:
		best, n := "", -1
		for i, e := range x {
			if kk, m := largestString(fmt.Sprintf("%s[%d]", key, i), e); m > n {
				best, n = kk, m
			}
		}
		return best, n
	}
	return key, 0
}

// readTextFile streams a JSON Lines or CSV data file through read.
func readTextFile(path string, strs []string, read func(string, io.Reader, []string) (fileRows, error)) (fileRows, error) {
	fh, _, err := openSized(path)
	if err != nil {
		return fileRows{}, err
	}
	defer fh.Close()
	return read(path, fh, strs)
}

// openSized opens a data file and returns its size, for readers that need
// both. Only a regular file (or a link to one) is opened: /dev/zero never
// ends and a FIFO blocks the open itself, so both are refused by a stat
// before the open, and checked again on the open file.
func openSized(path string) (*os.File, int64, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s: %w: it is a %s, not a regular file", path, ErrFormat, st.Mode().Type())
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := fh.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w: it is a %s, not a regular file", path, ErrFormat, st.Mode().Type())
	}
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	return fh, st.Size(), nil
}

// loadFiles reads files (already sorted) as one dataset through readFile,
// numbering the rows across them: Index and ID are the doc id. A file's
// error comes back as readFile gives it; a dataset of no rows is no error
// here (its callers word that).
func loadFiles(files []string, strs []string) (*Dataset, error) {
	ds := &Dataset{}
	for _, p := range files {
		rows, err := readFile(p, strs)
		if err != nil {
			return nil, err
		}
		ds.Files = append(ds.Files, FileRows{Path: p, Rows: len(rows.docs)})
		for row, d := range rows.docs {
			i := len(ds.Problems)
			ds.Problems = append(ds.Problems, Problem{ID: fmt.Sprint(i), Index: i, Doc: d,
				Columns: rows.fields.forDoc(d), Source: p, Row: row})
		}
	}
	return ds, nil
}
