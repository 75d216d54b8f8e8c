//go:build !cuda

package cuda

import "github.com/entropix-eval/entropix-eval/engine"

// Built reports whether this binary has the GPU backend.
const Built = false

// New returns ErrNotBuilt: this binary was built without the `cuda` tag.
func New(m *engine.Model, opts engine.Options, device int) (engine.Engine, error) {
	return nil, ErrNotBuilt
}

// DeviceCount returns ErrNotBuilt: this binary was built without the `cuda` tag.
func DeviceCount() (int, error) { return 0, ErrNotBuilt }
