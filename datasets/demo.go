package datasets

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// DemoFileName is the name the embedded demo split is written under.
const DemoFileName = "gsm8k-demo.jsonl"

// demoJSONL is a small split of grade-school word problems written for this
// project (not taken from GSM8K, so it can ship in the binary under the
// project's own licence), in GSM8K's JSONL form: a question and a worked answer
// ending in "#### N". It is embedded so `entropix-eval demo` needs no data on
// the machine and nothing from the network.
//
//go:embed demo/gsm8k-demo.jsonl
var demoJSONL []byte

// DemoJSONL returns a copy of the embedded demo split's bytes.
func DemoJSONL() []byte { return bytes.Clone(demoJSONL) }

// LoadDemo parses the embedded demo split, exactly as Load parses a JSONL file.
func LoadDemo() ([]Problem, error) {
	return ParseJSONL("embedded "+DemoFileName, demoJSONL)
}

// WriteDemo writes the embedded demo split into dir as DemoFileName and returns
// its path, for code paths that take a dataset file (the run pipeline reads
// and checksums a path like any user's data). An identical file already there
// is left alone; the write goes through a temporary file and a rename, so a
// reader never sees half a file.
func WriteDemo(dir string) (string, error) {
	path := filepath.Join(dir, DemoFileName)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, demoJSONL) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write demo data: %w", err)
	}
	tmp, err := os.CreateTemp(dir, DemoFileName+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write demo data: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(demoJSONL); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write demo data %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write demo data %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write demo data: %w", err)
	}
	return path, nil
}
