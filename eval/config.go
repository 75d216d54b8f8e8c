// Package eval runs sweeps: it expands a sweep config into jobs (sampler × seed ×
// repeat), fans the work out over one continuous-batching scheduler per device, keeps
// an append-only journal so a killed run resumes exactly, and rebuilds the run
// directory's result files from that journal. Answer extraction and scoring also live
// here (extract*.go, score*.go).
package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/entropix-eval/entropix-eval/internal/suggest"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// LoadConfig reads a sweep file. Unknown keys are errors so a typo cannot silently
// fall back to a default.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read sweep config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("sweep config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig decodes one YAML document.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, errors.New("empty document")
		}
		return Config{}, explainUnknownKeys(err)
	}
	var err error
	if cfg.Samplers, err = sampler.ExpandGrids(cfg.Samplers); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// unknownConfigKey is yaml.v3's message for a key Config does not have.
var unknownConfigKey = regexp.MustCompile(`^line (\d+): field (.+) not found in type rundir\.Config$`)

// explainUnknownKeys rewrites yaml.v3's "field X not found in type rundir.Config"
// as the sweep file's own terms: the line, the key, the key it most likely
// meant, and the keys a sweep file takes.
func explainUnknownKeys(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	keys := ConfigKeys()
	msgs := make([]string, len(te.Errors))
	unknown := false
	for i, e := range te.Errors {
		msgs[i] = e
		if m := unknownConfigKey.FindStringSubmatch(e); m != nil {
			msgs[i] = fmt.Sprintf("line %s: unknown key %s%s", m[1], m[2], suggest.Hint(m[2], keys))
			unknown = true
		}
	}
	if unknown {
		msgs = append(msgs, "a sweep file's keys are: "+strings.Join(keys, ", "))
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// ConfigKeys lists the keys of a sweep file: Config's YAML names, in field order.
func ConfigKeys() []string {
	t := reflect.TypeFor[Config]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
