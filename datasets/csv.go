package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// parseCSVDocs reads a CSV file with a header row the way the datasets
// library does for `dataset_path: csv` (pandas.read_csv): a column whose
// non-empty cells are all integers is int64, all numbers float64, all
// True/False bool, else string; an empty cell is NULL (nil). The column order
// is the header's.
func parseCSVDocs(name string, data []byte) (fileRows, error) {
	return readCSVDocs(name, bytes.NewReader(data))
}

// readCSVDocs is parseCSVDocs reading from in, with no line longer than
// maxJSONLLineBytes read into memory.
func readCSVDocs(name string, in io.Reader) (fileRows, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	if head, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	r := csv.NewReader(&lineBound{r: br, max: maxJSONLLineBytes})
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return fileRows{}, fmt.Errorf("%s: empty file (%w)", name, ErrNoRows)
	}
	if err != nil {
		return fileRows{}, fmt.Errorf("%s: header: %w", name, err)
	}
	if err := checkColumns(name+": header", len(header)); err != nil {
		return fileRows{}, err
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fileRows{}, fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return fileRows{}, fmt.Errorf("%s: header only (%w)", name, ErrNoRows)
	}
	kinds := make([]func(string) (any, bool), len(header))
	for c := range header {
		kinds[c] = csvKind(rows, c)
	}
	out := make([]Doc, len(rows))
	for i, rec := range rows {
		d := make(Doc, len(header))
		for c, h := range header {
			if rec[c] == "" {
				d[h] = nil
				continue
			}
			d[h], _ = kinds[c](rec[c])
		}
		out[i] = d
	}
	return fileRows{docs: out, fields: FieldsOf(header...)}, nil
}

// csvKind picks the narrowest parser every non-empty cell of column c accepts.
func csvKind(rows [][]string, c int) func(string) (any, bool) {
	parsers := []func(string) (any, bool){
		func(s string) (any, bool) { v, err := strconv.ParseInt(s, 10, 64); return v, err == nil },
		func(s string) (any, bool) { v, err := strconv.ParseFloat(s, 64); return v, err == nil },
		func(s string) (any, bool) {
			switch s {
			case "True", "true", "TRUE":
				return true, true
			case "False", "false", "FALSE":
				return false, true
			}
			return nil, false
		},
	}
	for _, parse := range parsers {
		ok := true
		for _, rec := range rows {
			if rec[c] == "" {
				continue
			}
			if _, ok = parse(rec[c]); !ok {
				break
			}
		}
		if ok {
			return parse
		}
	}
	return func(s string) (any, bool) { return s, true }
}

// lineBound passes its reader's bytes on until a line grows past max, then
// fails: encoding/csv buffers a whole record, and a single 600 MB field
// would be held before any bound on it could apply.
type lineBound struct {
	r   io.Reader
	max int
	run int // bytes since the last newline
}

func (l *lineBound) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.run = 0
		} else if l.run++; l.run > l.max {
			return 0, fmt.Errorf("%w: a line of more than %d bytes (a row's strings may hold %d bytes each)", ErrTooLarge, l.max, MaxFieldBytes)
		}
	}
	return n, err
}
