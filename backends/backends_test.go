package backends

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/cuda"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/usage"
)

func TestGPUIndex(t *testing.T) {
	tests := []struct {
		device  string
		worker  int
		want    int
		wantErr bool
	}{
		{"cuda", 0, 0, false},
		{"cuda", 3, 3, false},
		{"cuda:1", 0, 1, false},
		{"cuda:x", 0, 0, true},
		{"cuda:-1", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.device, func(t *testing.T) {
			got, err := gpuIndex(tt.device, tt.worker)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEngineOpenerBackends(t *testing.T) {
	_, err := Builtin.Opener("tpu", &engine.Model{}, engine.Options{})
	assert.ErrorIs(t, err, usage.Err)

	_, err = Builtin.Opener("cuda", &engine.Model{}, engine.Options{})
	if cuda.Built {
		assert.NoError(t, err)
	} else {
		// The default build says how to get the GPU backend instead of failing later.
		assert.ErrorIs(t, err, cuda.ErrNotBuilt)
	}
}
