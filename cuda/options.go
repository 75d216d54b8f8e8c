package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// These defaults are engine/cpu's, so the two backends resolve the same Options.
const (
	defaultMaxSeqLen = 4096
	defaultPadLen    = 4096
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
	if o.Slots <= 0 {
		o.Slots = 1
	}
	if o.MaxSeqLen <= 0 {
		o.MaxSeqLen = defaultMaxSeqLen
		if c.MaxPositions > 0 {
			o.MaxSeqLen = min(o.MaxSeqLen, c.MaxPositions)
		}
	}
	if o.TopK < 0 {
		return o, fmt.Errorf("options: top-k %d is negative", o.TopK)
	}
	switch o.AttnMode {
	case metrics.Masked:
	case metrics.Padded:
		if o.PadLen <= 0 {
			o.PadLen = defaultPadLen
		}
		if o.PadLen < o.MaxSeqLen {
			return o, fmt.Errorf("options: pad length %d below max sequence length %d", o.PadLen, o.MaxSeqLen)
		}
	default:
		return o, fmt.Errorf("options: unknown attention mode %d", o.AttnMode)
	}
	if o.MetricLayer == -1 {
		o.MetricLayer = c.Layers - 1
	}
	if o.MetricLayer < 0 || o.MetricLayer >= c.Layers {
		return o, fmt.Errorf("options: metric layer %d outside 0..%d (or -1 for the last)", o.MetricLayer, c.Layers-1)
	}
	if o.PrefillChunk < 0 {
		return o, fmt.Errorf("options: prefill chunk %d is negative", o.PrefillChunk)
	}
	return o, nil
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
	if b := attnStatsSharedBytes(c.Heads, c.HeadDim); b > maxSharedBytes {
		return fmt.Errorf("%d heads × head_dim %d need %d bytes of shared memory for the attention statistics (limit %d)",
			c.Heads, c.HeadDim, b, maxSharedBytes)
	}
	return nil
}
