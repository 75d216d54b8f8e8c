package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// The CUDA engine computes its GEMMs one way (BF16 inputs, FP32 accumulation:
// eval.ComputeDType); --matmul-precision bf16 is the CPU backend's option and is
// refused here by name rather than silently ignored.
func TestResolveOptionsRefusesMatmulPrecision(t *testing.T) {
	c := llama1B(t)
	_, err := resolveOptions(&c, engine.Options{MaxSeqLen: 64, MatmulPrecision: engine.MatmulBF16})
	require.ErrorContains(t, err, "--matmul-precision bf16 is implemented by the CPU backend only")
	o, err := resolveOptions(&c, engine.Options{MaxSeqLen: 64})
	require.NoError(t, err)
	require.Equal(t, engine.MatmulFP32, o.MatmulPrecision)
}
