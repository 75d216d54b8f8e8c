package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Doc is one dataset row as lm-eval's templates see it: column name to value.
// Values are string, int64, float64, bool, nil (NULL), []any (lists) and
// map[string]any (structs), whatever the file format.
type Doc = map[string]any

// LoadDocs reads every file matching pattern (.parquet, .jsonl, .csv or a
// Hugging Face datasets-cache .arrow stream) in sorted path order, keeping every column
// of every row: the input of task YAML templates. Index and ID are the doc id
// (the row index across the sorted files), as in Load.
func LoadDocs(pattern string) (*Dataset, error) {
	paths, err := matchFiles(pattern)
	if err != nil {
		return nil, err
	}
	return loadDocFiles(paths)
}

// matchFiles expands a path or glob into sorted paths, or says why nothing matched.
func matchFiles(pattern string) ([]string, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", pattern, err)
	}
	if len(paths) == 0 {
		if _, statErr := os.Stat(pattern); statErr != nil && !hasMeta(pattern) {
			return nil, fmt.Errorf("load %s: %w", pattern, statErr)
		}
		return nil, fmt.Errorf("load %s: no files match", pattern)
	}
	slices.Sort(paths)
	return paths, nil
}

// loadDocFiles reads an explicit file list (already sorted) as one dataset
// of docs.
func loadDocFiles(files []string) (*Dataset, error) {
	ds, err := loadFiles(files, nil)
	if err != nil {
		return nil, fmt.Errorf("load %w", err)
	}
	if len(ds.Problems) == 0 {
		return nil, fmt.Errorf("load %s: %w", strings.Join(files, ", "), ErrNoRows)
	}
	return ds, nil
}
