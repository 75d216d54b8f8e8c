package datasets

import (
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
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return fileRows{}, fmt.Errorf("%s: empty file (%w)", name, ErrNoRows)
	}
	if err != nil {
		return fileRows{}, fmt.Errorf("%s: header: %w", name, err)
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
