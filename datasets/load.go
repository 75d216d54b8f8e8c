package datasets

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// Dataset is a split loaded from one or more files.
type Dataset struct {
	// Files are the files read, in the order their rows were numbered.
	Files []FileRows
	// Problems are all rows; Problems[i].Index == i.
	Problems []Problem
}

// FileRows says how many rows one file contributed.
type FileRows struct {
	Path string
	Rows int
}

// SplitGlob returns the glob of a split in the Hugging Face dataset layout,
// e.g. SplitGlob("data/gsm8k", "main", "test") = "data/gsm8k/main/test-*.parquet",
// which matches test-00000-of-00001.parquet as well as sharded splits.
func SplitGlob(root, config, split string) string {
	return filepath.Join(root, config, split+"-*.parquet")
}

// gsm8kColumns are the columns the GSM8K layout (openai/gsm8k) needs as
// strings; other columns and any column order are fine.
var gsm8kColumns = []string{"question", "answer"}

// fewshotColumns are those of a few-shot exemplar file.
var fewshotColumns = []string{"question", "target"}

// Load reads every file matching pattern (a path or a filepath.Glob pattern;
// .parquet, .jsonl, .csv and .arrow files, read as LoadDocs reads them) in the
// GSM8K layout, in sorted path order, and numbers the rows across them: Index
// and ID are the doc id, the row index over the sorted files. Any failing
// file fails the whole load, and a dataset with no rows at all is an error; a
// single empty Parquet shard among others is fine.
func Load(pattern string) (*Dataset, error) {
	paths, err := matchFiles(pattern)
	if err != nil {
		return nil, err
	}
	literal := len(paths) == 1 && paths[0] == pattern
	ds, err := loadFiles(paths, gsm8kColumns)
	if err != nil {
		if literal {
			return nil, fmt.Errorf("load %w", err) // the file error starts with its path
		}
		return nil, fmt.Errorf("load %s: %w", pattern, err)
	}
	for i := range ds.Problems {
		ds.Problems[i].setGSM8K()
	}
	if len(ds.Problems) == 0 {
		if literal {
			return nil, fmt.Errorf("load %s: %w, nothing to evaluate", pattern, ErrNoRows)
		}
		return nil, fmt.Errorf("load %s: %w, nothing to evaluate (files: %s)", pattern, ErrNoRows, strings.Join(paths, ", "))
	}
	return ds, nil
}

func hasMeta(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// LoadFile reads one data file in the GSM8K layout. Row and Index are the row
// within this file. A Parquet file with the right schema and no rows gives no
// problems and no error (it may be one empty shard); an empty JSONL file is
// an error.
func LoadFile(path string) ([]Problem, error) {
	rows, err := readFile(path, gsm8kColumns)
	if err != nil {
		return nil, err
	}
	return gsm8kProblems(path, rows), nil
}

// gsm8kProblems makes the problems of one file read with gsm8kColumns
// checked, numbered within the file.
func gsm8kProblems(source string, rows fileRows) []Problem {
	out := make([]Problem, len(rows.docs))
	for i, d := range rows.docs {
		out[i] = fileProblem(source, i, d, rows.fields)
		out[i].setGSM8K()
	}
	return out
}

// fileProblem is row `row` of a file as a problem numbered within the file.
func fileProblem(source string, row int, d Doc, fields Fields) Problem {
	return Problem{ID: fmt.Sprint(row), Index: row, Row: row, Source: source, Doc: d, Columns: fields.forDoc(d)}
}

// ErrTooLarge: a field is over MaxFieldBytes.
var ErrTooLarge = usage.New("field too large")

// LoadFewshotFile reads few-shot exemplars: rows with "question" and
// "target" strings (the target used verbatim), in any format readFile reads.
func LoadFewshotFile(path string) ([]Problem, error) {
	rows, err := readFile(path, fewshotColumns)
	if err != nil {
		return nil, fmt.Errorf("load few-shot examples: %w", err)
	}
	return fewshotProblems(path, rows), nil
}

func fewshotProblems(source string, rows fileRows) []Problem {
	out := make([]Problem, len(rows.docs))
	for i, d := range rows.docs {
		out[i] = fileProblem(source, i, d, rows.fields)
		out[i].Question, out[i].Target, out[i].TargetValid = d["question"].(string), d["target"].(string), true
	}
	return out
}
