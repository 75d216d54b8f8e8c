package eval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// promptFake is a fake sampler whose first token reads the prompt means.
type promptFake struct{ fakeSampler }

func (promptFake) PromptMetrics() bool { return true }

// The CUDA backend does not compute prompt-averaged metrics: a sweep with a
// sampler that reads them is refused before anything runs, naming both.
func TestPromptMetricsRefusedOffCPU(t *testing.T) {
	r := fakeRun{devices: []string{"cuda:0"}}.runner(filepath.Join(t.TempDir(), "run"))
	r.Config.Backend = "cuda"
	r.Samplers[1] = promptFake{fakeSampler{"sample"}}
	_, err := r.Run(context.Background())
	require.ErrorContains(t, err, "samplers[1] (sample(temperature=1))")
	require.ErrorContains(t, err, "which the cuda backend does not compute")
}
