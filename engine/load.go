package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// Checkpoint file names inside a Hugging Face model directory.
const (
	ConfigFile      = "config.json"
	SafetensorsFile = "model.safetensors"
	IndexFile       = "model.safetensors.index.json"
	TokenizerFile   = "tokenizer.json"
)

// Load opens a checkpoint: a Hugging Face directory (config.json with
// model.safetensors, or shards listed in model.safetensors.index.json), a path to a
// file inside one (config.json or a .safetensors file), or a llama2.c .bin file.
// Weights are memory-mapped read-only and kept in their stored dtype; the model must
// be Closed to unmap them. Every mismatch between the config and the weights is an
// error naming the file and the tensor.
func Load(path string) (*Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	switch {
	case st.IsDir():
		if !fileExists(filepath.Join(path, ConfigFile)) && !fileExists(filepath.Join(path, SafetensorsFile)) {
			return nil, fmt.Errorf("load model: %s has no %s: not a Hugging Face checkpoint directory (pass a llama2.c checkpoint as its .bin file)", path, ConfigFile)
		}
		return loadHF(path)
	case filepath.Base(path) == ConfigFile || strings.HasSuffix(path, ".safetensors") || strings.HasSuffix(path, ".safetensors.index.json"):
		return loadHF(filepath.Dir(path))
	default:
		return loadLlama2c(path)
	}
}

func loadHF(dir string) (m *Model, err error) {
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	m = &Model{Dir: dir, Config: cfg, Tensors: map[string]*Tensor{}}
	defer closeOnError(m, &err)
	from := map[string]string{} // tensor name → file, for error messages
	single := filepath.Join(dir, SafetensorsFile)
	index := filepath.Join(dir, IndexFile)
	source := single // names the weights in errors about tensors that are not there
	switch {
	case fileExists(single):
		err = m.addSafetensors(single, from, nil)
	case fileExists(index):
		source = index
		err = m.addShards(index, from)
	default:
		err = fmt.Errorf("model %s: neither %s nor %s exists", dir, SafetensorsFile, IndexFile)
	}
	if err != nil {
		return nil, err
	}
	if err := m.checkTensors(source, from); err != nil {
		return nil, usage.Wrap(err) // the checkpoint does not match its config
	}
	m.Config.DType = m.Tensors["model.embed_tokens.weight"].DType
	if tok := filepath.Join(dir, TokenizerFile); fileExists(tok) {
		m.TokenizerPath = tok
	}
	slog.Debug("model loaded", "dir", dir, "arch", m.Config.Architecture, "dtype", m.Config.DType,
		"tensors", len(m.Tensors), "tokenizer", m.TokenizerPath)
	return m, nil
}

// addSafetensors maps one safetensors file and adds its tensors. When owner is not
// nil (a shard), every tensor must be listed in it under this file.
func (m *Model) addSafetensors(path string, from map[string]string, owner map[string]string) error {
	data, release, err := mapFile(path)
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	m.OnClose(release)
	h, err := parseSafetensors(data)
	if err != nil {
		return usage.Errorf("safetensors %s: %w", path, err)
	}
	base := filepath.Base(path)
	for _, e := range h.Tensors {
		if prev, dup := from[e.Name]; dup {
			return fmt.Errorf("safetensors %s: tensor %q is also in %s", path, e.Name, prev)
		}
		if owner != nil && owner[e.Name] != base {
			if owner[e.Name] == "" {
				return fmt.Errorf("safetensors %s: tensor %q is not in the index's weight_map", path, e.Name)
			}
			return fmt.Errorf("safetensors %s: tensor %q is mapped to %s by the index", path, e.Name, owner[e.Name])
		}
		from[e.Name] = path
		off := h.DataStart
		m.Tensors[e.Name] = &Tensor{Name: e.Name, DType: e.DType, Shape: e.Shape,
			Data: data[off+e.Begin : off+e.End : off+e.End]}
	}
	return nil
}

// ignorable reports tensors that transformers drops silently when loading: RoPE
// buffers saved by old versions.
func ignorable(name string) bool {
	return strings.HasSuffix(name, ".rotary_emb.inv_freq")
}

// checkTensors compares the loaded tensors with the ones the config implies.
func (m *Model) checkTensors(source string, from map[string]string) error {
	// Past twice the real count, the list itself would be the cost (and its
	// errors say no more than this one); below it, each tensor is named.
	if want, have := m.Config.ExpectedTensorCount(), len(m.Tensors); want > 2*have+16 {
		return fmt.Errorf("model %s: config.json implies %d tensors (num_hidden_layers %d), the weights (%s) hold %d: the config does not describe these weights",
			m.Dir, want, m.Config.Layers, source, have)
	}
	var errs []error
	specs := m.Config.ExpectedTensors()
	want := make(map[string]bool, len(specs))
	for _, s := range specs {
		want[s.Name] = true
		t, ok := m.Tensors[s.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("safetensors %s: tensor %q missing (config.json implies shape %v)", source, s.Name, s.Shape))
			continue
		}
		if err := t.CheckShape(s.Shape...); err != nil {
			errs = append(errs, fmt.Errorf("safetensors %s: %w", from[s.Name], err))
		}
	}
	var extra []string
	for name := range m.Tensors {
		if !want[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		switch {
		case ignorable(name):
			delete(m.Tensors, name)
		case name == "lm_head.weight" && m.Config.TiedEmbedding:
			// Some exporters save the tied head anyway; transformers ties it to the
			// embedding and ignores the stored copy, and so do we.
			slog.Warn("ignoring lm_head.weight of a tied model", "file", from[name])
			delete(m.Tensors, name)
		default:
			errs = append(errs, fmt.Errorf("safetensors %s: unexpected tensor %q (not implied by config.json)", from[name], name))
		}
	}
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Errorf("and %d more tensor errors", len(errs)-3))
	}
	return errors.Join(errs...)
}

// closeOnError unmaps what a failed load had mapped. It takes the model itself, not
// the named result, which a `return nil, err` has already cleared.
func closeOnError(m *Model, err *error) {
	if *err != nil {
		m.Close()
	}
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
