package engine

import (
	"fmt"
	"log/slog"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

const (
	// DefaultMaxSeqLen caps a slot's cache when neither the options nor the config do.
	DefaultMaxSeqLen = 4096
	// DefaultPadLen is the original Entropix cache size, used by padded attention stats.
	DefaultPadLen = 4096
	// DefaultPrefixCacheBytes is the memory kept for shared prompt prefixes when the
	// options leave it 0: on SmolLM2-135M (0.7 MiB of keys and values per 16-token
	// block) about 23,000 tokens, an 8-shot GSM8K prefix and a few hundred questions.
	DefaultPrefixCacheBytes = 1 << 30
)

// Resolve fills the defaults every backend shares and rejects settings no backend
// can run, so the CPU and CUDA engines accept exactly the same options with the same
// messages. Threads is left to the backend.
func (o Options) Resolve(c *Config) (Options, error) {
	var err error
	if o.Slots <= 0 {
		o.Slots = 1
	}
	if o.MaxSeqLen <= 0 {
		o.MaxSeqLen = DefaultMaxSeqLen
		if c.MaxPositions > 0 {
			o.MaxSeqLen = min(o.MaxSeqLen, c.MaxPositions)
		}
	} else if c.MaxPositions > 0 && o.MaxSeqLen > c.MaxPositions {
		slog.Warn("engine: cache longer than the model's max_position_embeddings",
			"max_seq_len", o.MaxSeqLen, "max_positions", c.MaxPositions)
	}
	if o.TopK < 0 {
		return o, fmt.Errorf("options: top-k %d is negative", o.TopK)
	}
	switch o.AttnMode {
	case metrics.Masked:
	case metrics.Padded:
		if o.PadLen <= 0 {
			o.PadLen = DefaultPadLen
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
	if o.PrefixCacheBytes == 0 {
		o.PrefixCacheBytes = DefaultPrefixCacheBytes
	}
	if o.MatmulPrecision, err = ParseMatmulPrecision(string(o.MatmulPrecision)); err != nil {
		return o, fmt.Errorf("options: %w", err)
	}
	if o.PrefillChunk < 0 {
		return o, fmt.Errorf("options: prefill chunk %d is negative", o.PrefillChunk)
	}
	return o, nil
}

// MatmulPrecision is how a backend computes the weight matmuls (q/k/v/o,
// gate/up/down, lm head), after PyTorch's torch.set_float32_matmul_precision.
// Attention, norms and softmax are float32 in every mode.
type MatmulPrecision string

const (
	// MatmulFP32 keeps weights and activations in float32 (BF16/F16 weights are
	// widened exactly): the engine's reference numbers. The zero value means it.
	MatmulFP32 MatmulPrecision = "fp32"
	// MatmulBF16 rounds each matmul's input activations to bfloat16 and
	// accumulates bfloat16 products in float32 (VDPBF16PS), as llama.cpp and
	// PyTorch do for a BF16 model: faster, and not the same numbers as fp32.
	MatmulBF16 MatmulPrecision = "bf16"
)

// ParseMatmulPrecision reads a --matmul-precision value ("" is fp32).
func ParseMatmulPrecision(s string) (MatmulPrecision, error) {
	switch p := MatmulPrecision(s); p {
	case "", MatmulFP32:
		return MatmulFP32, nil
	case MatmulBF16:
		return p, nil
	}
	return "", fmt.Errorf("matmul precision %q: want fp32 or bf16", s)
}
