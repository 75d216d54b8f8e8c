package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// Load reads every file matching pattern (a path or a filepath.Glob pattern;
// .parquet and .jsonl files) in sorted path order and numbers the rows across
// them: Index and ID are the doc id, the row index over the sorted files.
// Any failing file fails the whole load, and a dataset with no rows at all is
// an error; a single empty Parquet shard among others is fine.
func Load(pattern string) (*Dataset, error) {
	paths, err := matchFiles(pattern)
	if err != nil {
		return nil, err
	}
	literal := len(paths) == 1 && paths[0] == pattern
	ds := &Dataset{}
	for _, p := range paths {
		ps, err := LoadFile(p)
		if err != nil {
			if literal {
				return nil, fmt.Errorf("load %w", err) // the file error starts with its path
			}
			return nil, fmt.Errorf("load %s: %w", pattern, err)
		}
		ds.Files = append(ds.Files, FileRows{Path: p, Rows: len(ps)})
		for _, pr := range ps {
			pr.Index = len(ds.Problems)
			pr.ID = strconv.Itoa(pr.Index)
			ds.Problems = append(ds.Problems, pr)
		}
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

// LoadFile reads one .parquet or .jsonl file. Row and Index are the row within
// this file. A Parquet file with the right schema and no rows gives no problems
// and no error (it may be one empty shard); an empty JSONL file is an error.
func LoadFile(path string) ([]Problem, error) {
	ps, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	return ps, checkFieldSizes(path, ps)
}

// MaxFieldBytes bounds one question or answer. Datasets come from the internet,
// and every prompt is tokenized, journaled and read back whole; no benchmark
// item comes near a mebibyte.
const MaxFieldBytes = 1 << 20

// ErrTooLarge: a field is over MaxFieldBytes.
var ErrTooLarge = errors.New("field too large")

// checkFieldSizes refuses a row whose question or answer is over MaxFieldBytes,
// naming the file and the row (0-based, as every row error here).
func checkFieldSizes(path string, ps []Problem) error {
	for _, p := range ps {
		for _, f := range []struct{ name, v string }{{"question", p.Question}, {"answer", p.Answer}, {"target", p.Target}} {
			if len(f.v) > MaxFieldBytes {
				return fmt.Errorf("%s: row %d: %s of %d bytes: %w (at most %d bytes)", path, p.Row, f.name, len(f.v), ErrTooLarge, MaxFieldBytes)
			}
		}
	}
	return nil
}

// openSized opens a file and returns its size, for readers that need both.
func openSized(path string) (*os.File, int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	return fh, st.Size(), nil
}

func loadFile(path string) ([]Problem, error) {
	switch formatOf(path) {
	case "parquet":
		fh, size, err := openSized(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return ReadParquet(path, fh, size)
	case "jsonl":
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return ParseJSONL(path, b)
	}
	return nil, fmt.Errorf("%s: %w (want .parquet or .jsonl)", path, ErrFormat)
}

// LoadFewshotFile reads few-shot exemplars ({"question", "target"} JSONL).
func LoadFewshotFile(path string) ([]Problem, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load few-shot examples: %w", err)
	}
	shots, err := ParseFewshotJSONL(path, b)
	if err == nil {
		err = checkFieldSizes(path, shots)
	}
	if err != nil {
		return nil, fmt.Errorf("load few-shot examples: %w", err)
	}
	return shots, nil
}

// formatOf names the file format from the extension: "parquet", "jsonl" or "".
func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	return ""
}
