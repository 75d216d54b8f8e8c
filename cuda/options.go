package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Kernel limits that the config must respect (see attention.cu and attnstats.cu).
const (
	maxHeadDim       = 256 // MAX_DL (8) dims per lane × 32 lanes
	maxSharedBytes   = 48 << 10
	maxHeadsPerBlock = 8 // MAX_HB
)

// resolveOptions fills defaults and rejects settings the engine cannot run, with the
// same rules (and messages) as the CPU backend.
func resolveOptions(c *engine.Config, o engine.Options) (engine.Options, error) {
	o, err := o.Resolve(c)
	if err == nil && o.MatmulPrecision != engine.MatmulFP32 {
		// The GEMMs here always take BF16 inputs with FP32 accumulation (cuBLAS), which
		// is not the CPU contract of engine.MatmulBF16: refuse rather than pretend.
		err = fmt.Errorf("--matmul-precision %s is implemented by the CPU backend only (the CUDA backend's GEMMs always take BF16 inputs with FP32 accumulation, in cuBLAS's order); leave the flag out with --backend cuda", o.MatmulPrecision)
	}
	return o, err
}

// checkConfig rejects models the kernels cannot run, before any device work.
func checkConfig(c *engine.Config) error {
	if c.HiddenSize <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 ||
		c.VocabSize <= 0 || c.Intermediate <= 0 {
		return fmt.Errorf("incomplete config (hidden %d, layers %d, heads %d/%d, head_dim %d, vocab %d, intermediate %d)",
			c.HiddenSize, c.Layers, c.Heads, c.KVHeads, c.HeadDim, c.VocabSize, c.Intermediate)
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("%d heads not a multiple of %d kv heads", c.Heads, c.KVHeads)
	}
	if c.HeadDim%2 != 0 || c.HeadDim > maxHeadDim {
		return fmt.Errorf("head_dim %d: the CUDA kernels need an even head_dim up to %d", c.HeadDim, maxHeadDim)
	}
	if attnAgreementTile(c.Heads, c.HeadDim) == 0 {
		return fmt.Errorf("%d heads × head_dim %d need %d bytes of shared memory for the attention statistics (limit %d)",
			c.Heads, c.HeadDim, attnAgreementSharedBytes(c.Heads, c.HeadDim, 8), maxSharedBytes)
	}
	return nil
}
