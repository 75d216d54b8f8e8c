package engine

import (
	"errors"
	"fmt"
)

// Model is a loaded checkpoint: its resolved config and its weights by Hugging Face
// name (llama2.c checkpoints are renamed and re-laid-out into the same names, so
// backends have one code path).
type Model struct {
	Dir     string
	Config  Config
	Tensors map[string]*Tensor
	// TokenizerPath is the checkpoint's tokenizer.json, or "" when it has none
	// (id-only fixtures still load).
	TokenizerPath string
	closers       []func() error
}

// Tensor returns a weight by name, or an error naming the model and the tensor.
func (m *Model) Tensor(name string) (*Tensor, error) {
	t, ok := m.Tensors[name]
	if !ok {
		return nil, fmt.Errorf("model %s: tensor %q missing", m.Dir, name)
	}
	return t, nil
}

// OnClose registers a release function (an unmap) to run at Close.
func (m *Model) OnClose(f func() error) { m.closers = append(m.closers, f) }

// Close releases mapped files; the model's tensors must not be used afterwards.
func (m *Model) Close() error {
	var errs []error
	for _, f := range m.closers {
		errs = append(errs, f())
	}
	m.closers = nil
	return errors.Join(errs...)
}
