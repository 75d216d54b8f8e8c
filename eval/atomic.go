package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/entropix-eval/entropix-eval/reports"
)

// WriteFileAtomic is reports.WriteFileAtomic: temp file, fsync, rename, directory
// fsync, so readers see the old file or the whole new one.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	return reports.WriteFileAtomic(path, write)
}

// writeJSONAtomic writes v as indented JSON followed by a newline.
func writeJSONAtomic(path string, v any) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// readJSON decodes a JSON file, naming it in errors.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}
