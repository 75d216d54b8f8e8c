//go:build cuda

package cuda

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/cuda/internal/gpuprobe"
	"github.com/entropix-eval/entropix-eval/engine"
)

// needGPU skips t when the driver reports no device, or fails it where
// ENTROPIX_REQUIRE_GPU is set. (Without a driver at all the `cuda` test binary cannot
// start: gorgonia.org/cu links libcuda and exits in init.)
func needGPU(t testing.TB) {
	t.Helper()
	n, err := DeviceCount()
	if err != nil || n == 0 {
		if os.Getenv(gpuprobe.RequireEnv) != "" {
			t.Fatalf("no CUDA device (%v) and %s is set", err, gpuprobe.RequireEnv)
		}
		t.Skipf("no CUDA device (%v)", err)
	}
}

func newGPU(t testing.TB, m *engine.Model, o engine.Options) *Engine {
	t.Helper()
	e, err := newEngine(m, o, 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}
