package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// FileInfo describes a data file's layout, for `entropix-eval datasets inspect`.
type FileInfo struct {
	Path   string
	Format string // "parquet", "jsonl", "csv" or "arrow"
	// Rows is the footer's row count (Parquet) or the number of non-blank lines (JSONL).
	Rows      int64
	RowGroups int
	CreatedBy string
	Columns   []ColumnInfo
	// Metadata are the Parquet key-value entries' keys (e.g. "huggingface", "ARROW:schema").
	Metadata []string
}

// ColumnInfo is one column (Parquet) or key of the first object (JSONL).
type ColumnInfo struct {
	Name        string
	Type        string // e.g. "BYTE_ARRAY (STRING)", "INT64", or a JSON kind
	Optional    bool
	Compression string
}

// DescribeFile reads a file's schema and counts without decoding its rows
// (Parquet, JSONL), or from its rows (CSV, Arrow).
func DescribeFile(path string) (FileInfo, error) {
	info := FileInfo{Path: path, Format: string(formatOf(path))}
	switch formatOf(path) {
	case formatParquet:
		return describeParquet(info)
	case formatJSONL:
		return describeJSONL(info)
	case formatCSV, formatArrow:
		return describeDocs(info)
	}
	return info, fmt.Errorf("%s: %w (want .parquet, .jsonl, .csv or .arrow)", path, ErrFormat)
}

// describeDocs describes a CSV or datasets-cache Arrow file from its rows:
// its columns in the file's order (the CSV header's, the Arrow schema's) and
// the kinds of their values.
func describeDocs(info FileInfo) (FileInfo, error) {
	rows, err := readFile(info.Path, nil)
	if err != nil {
		return info, err
	}
	info.Rows = int64(len(rows.docs))
	for _, c := range DocColumns(rows.docs, rows.fields.Names()) {
		kind := "null"
		for _, d := range rows.docs {
			if d[c] != nil {
				kind = valueKind(d[c])
				break
			}
		}
		info.Columns = append(info.Columns, ColumnInfo{Name: c, Type: kind, Optional: true})
	}
	return info, nil
}

// valueKind names a loaded value's type as inspect shows it.
func valueKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "struct"
	}
	return fmt.Sprintf("%T", v)
}

func describeParquet(info FileInfo) (_ FileInfo, err error) {
	defer recoverCorrupt(info.Path, &err)
	fh, _, err := openSized(info.Path)
	if err != nil {
		return info, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return info, err
	}
	f, err := OpenParquet(info.Path, fh, st.Size())
	if err != nil {
		return info, err
	}
	md := f.Metadata()
	info.Rows = f.NumRows()
	info.RowGroups = len(f.RowGroups())
	info.CreatedBy = md.CreatedBy
	for _, kv := range md.KeyValueMetadata {
		info.Metadata = append(info.Metadata, kv.Key)
	}
	types := fileColumnTypes(f)
	for _, c := range f.Root().Columns() {
		ci := ColumnInfo{Name: c.Name(), Optional: c.Optional(), Type: types[c.Name()]}
		if c.Leaf() {
			if len(md.RowGroups) > 0 && c.Index() >= 0 && c.Index() < len(md.RowGroups[0].Columns) {
				ci.Compression = md.RowGroups[0].Columns[c.Index()].MetaData.Codec.String()
			}
		}
		info.Columns = append(info.Columns, ci)
	}
	return info, nil
}

func describeJSONL(info FileInfo) (FileInfo, error) {
	fh, _, err := openSized(info.Path)
	if err != nil {
		return info, err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	if head, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	first := true
	for n := 1; ; n++ {
		line, err := readLine(br, maxJSONLLineBytes)
		if err != nil && err != io.EOF {
			return info, fmt.Errorf("%s:%d: %w", info.Path, n, err)
		}
		if line == nil {
			break
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			info.Rows++
			if first {
				first = false
				if err := checkColumns("row", topLevelKeys(line)); err != nil {
					return info, fmt.Errorf("%s:%d: %w", info.Path, n, err)
				}
				cols, err := jsonObjectKeys(line)
				if err != nil {
					return info, fmt.Errorf("%s:%d: %w: %v", info.Path, n, ErrSyntax, err)
				}
				info.Columns = cols
			}
		}
		if err == io.EOF {
			break
		}
	}
	return info, nil
}

// jsonObjectKeys lists an object's keys in file order with their JSON kinds
// (NaN, Infinity and -Infinity, which json.loads reads, are numbers).
func jsonObjectKeys(line []byte) ([]ColumnInfo, error) {
	line = pyjson.Standard(line)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, err
	}
	var cols []ColumnInfo
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		kind := "string"
		switch {
		case string(skip) == "null":
			kind = "null"
		case !strings.HasPrefix(string(skip), `"`):
			kind = jsonKind(skip)
		}
		cols = append(cols, ColumnInfo{Name: key, Type: kind})
	}
	return cols, nil
}

// Validate lists what would make a loaded split doubtful to evaluate on,
// without failing the load: problems with no valid target, empty questions,
// and repeated questions.
func Validate(ps []Problem) []string {
	var out []string
	if bad := InvalidTargets(ps); len(bad) > 0 {
		out = append(out, fmt.Sprintf("%d problem(s) without a \"#### N\" final answer (never scored correct): doc %s", len(bad), listInts(bad, 10)))
	}
	var empty []int
	seen := map[string]int{}
	var dups []string
	for i, p := range ps {
		if strings.TrimSpace(p.Question) == "" {
			empty = append(empty, i)
		}
		if j, ok := seen[p.Question]; ok && len(dups) < 10 {
			dups = append(dups, fmt.Sprintf("%d=%d", i, j))
		}
		seen[p.Question] = i
	}
	if len(empty) > 0 {
		out = append(out, fmt.Sprintf("%d problem(s) with an empty question: doc %s", len(empty), listInts(empty, 10)))
	}
	if len(dups) > 0 {
		out = append(out, "repeated questions (doc=earlier doc): "+strings.Join(dups, ", "))
	}
	return out
}

// ValidateDocs lists, per column, the docs where it is NULL, missing or an
// empty string: a template reading it would render nothing (or fail).
func ValidateDocs(ps []Problem, columns []string) []string {
	var out []string
	for _, c := range columns {
		var unset, empty []int
		for i, p := range ps {
			switch v, ok := p.Doc[c]; {
			case !ok || v == nil:
				unset = append(unset, i)
			case v == "":
				empty = append(empty, i)
			}
		}
		if len(unset) > 0 {
			out = append(out, fmt.Sprintf("column %q: NULL or missing in %d doc(s): doc %s", c, len(unset), listInts(unset, 10)))
		}
		if len(empty) > 0 {
			out = append(out, fmt.Sprintf("column %q: empty in %d doc(s): doc %s", c, len(empty), listInts(empty, 10)))
		}
	}
	return out
}

func listInts(xs []int, limit int) string {
	var parts []string
	for i, x := range xs {
		if i == limit {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(xs)-limit))
			break
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}
