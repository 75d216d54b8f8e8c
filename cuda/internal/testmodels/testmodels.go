// Package testmodels names the checkpoints in ../shared that the cuda package's tests
// compare the two backends on, and the files of ../shared each of them reads, so that
// `make gpu-prep` carries exactly those to a GPU machine.
package testmodels

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Model is one checkpoint with the golden prompts the tests feed it.
type Model struct {
	Name   string // as the tests' logs name it
	Golden string // golden/models/<Golden>.json holds its prompts
	Path   string // relative to ../shared: a Hugging Face folder or a llama2.c .bin
	// Sharp marks a trained model with sharp distributions (logits up to ~17, heads
	// of ~1 bit), which the tests compare at wider tolerances.
	Sharp bool
}

// Models is every model in ../shared/models; the llama2.c checkpoint reuses
// stories260K-hf's prompts (same vocabulary).
var Models = []Model{
	{"stories260K-hf", "stories260K-hf", "models/stories260K-hf", true},
	{"tiny-llama3", "tiny-llama3", "models/tiny-llama3", false},
	{"tiny-qwen2", "tiny-qwen2", "models/tiny-qwen2", false},
	{"tiny-smollm2", "tiny-smollm2", "models/tiny-smollm2", false},
	{"tiny-llama-untied", "tiny-llama-untied", "models/tiny-llama-untied", false},
	{"stories260K-llama2c", "stories260K-hf", "models/stories260K/stories260K.bin", true},
}

// GoldenFile is the golden prompts' file, relative to ../shared.
func (m Model) GoldenFile() string { return "golden/models/" + m.Golden + ".json" }

// Files lists the shared files m's tests read, relative to ../shared: the golden
// prompts and what engine.Load reads of the checkpoint (a folder's config.json and
// single model.safetensors; a .bin file itself).
func (m Model) Files() []string {
	files := []string{m.GoldenFile()}
	if strings.HasSuffix(m.Path, ".bin") {
		return append(files, m.Path)
	}
	return append(files, m.Path+"/"+engine.ConfigFile, m.Path+"/"+engine.SafetensorsFile)
}

// Files is every model's files, each once, in Models' order.
func Files() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range Models {
		for _, f := range m.Files() {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Copy copies Files() from the shared folder into dst, keeping their relative paths,
// and returns the bytes copied. A missing file is an error naming it.
func Copy(shared, dst string) (int64, error) {
	var total int64
	for _, rel := range Files() {
		n, err := copyFile(filepath.Join(shared, rel), filepath.Join(dst, rel))
		if err != nil {
			return total, fmt.Errorf("copying the shared test file %s: %w", rel, err)
		}
		total += n
	}
	return total, nil
}

func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
