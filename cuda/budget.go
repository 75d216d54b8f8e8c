package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

const (
	// minTokenCap is the smallest activation buffer in token rows: prefill chunks up to
	// this size run in one pass; bigger steps are split (splitStep).
	minTokenCap = 1024
	// reserveBytes is kept free for the CUDA context, the JIT-compiled modules and
	// cuBLAS' workspace, which cuMemGetInfo cannot foresee.
	reserveBytes = 512 << 20
)

// memoryPlan is every device byte an engine allocates, computed before the first
// allocation so an oversized request fails with advice instead of a CUDA error.
type memoryPlan struct {
	Weights     int64
	KVCache     int64
	Activations int64 // per-token buffers × tokenCap
	Outputs     int64 // per-output buffers (logits, statistics, top-K scratch) × Slots
	Rope        int64
	PrefixCache int64 // the prefix-sharing block pool: whole blocks within Options.PrefixCacheBytes
	Reserve     int64
	TokenCap    int
}

// Total is the sum of the parts.
func (p memoryPlan) Total() int64 {
	return p.Weights + p.KVCache + p.Activations + p.Outputs + p.Rope + p.PrefixCache + p.Reserve
}

// tokenCapFor is the activation size in token rows for a slot count.
func tokenCapFor(slots int) int { return max(slots, minTokenCap) }

// kvBytes is the BF16 K and V cache of every layer for slots × maxSeq positions.
func kvBytes(c *engine.Config, slots, maxSeq int) int64 {
	return 2 * 2 * int64(c.Layers) * int64(slots) * int64(maxSeq) * int64(c.KVHeads) * int64(c.HeadDim)
}

// activationBytesPerToken sums the per-token-row buffers of one forward pass:
// residual (f32), normed input (bf16), fused qkv out (f32), rotated q (f32), attention
// out (bf16), fused gate/up out (f32), SiLU product (bf16) and ids/positions/slots.
func activationBytesPerToken(c *engine.Config) int64 {
	h, q, kv, in := int64(c.HiddenSize), int64(c.Heads*c.HeadDim), int64(c.KVHeads*c.HeadDim), int64(c.Intermediate)
	return 4*h + 2*h + 4*(q+2*kv) + 4*q + 2*q + 4*2*in + 2*in + 3*4
}

// outputBytesPerSlot sums the per-output buffers: the gathered final norm (bf16),
// logits (f32), logits and attention statistics (f64), each head's attention max,
// partition function and |score| sum, the agreement's partial sums and the logits
// statistics' per-chunk moments (f64, between the statistics kernels), the top-K
// ping-pong scratch and the output row indices (twice: in input order and grouped by
// attention view).
func outputBytesPerSlot(c *engine.Config, topK int) int64 {
	k := gpuTopK(topK, c.VocabSize)
	scratch := int64(0)
	if k > 0 {
		scratch = 2 * 8 * int64(topkScratchEntries(c.VocabSize, k))
	}
	return 2*int64(c.HiddenSize) + 4*int64(c.VocabSize) + 8*3 + 8*int64(c.Heads+2) + 8*(3*int64(c.Heads)+attnAgreementChunks) +
		8*4*int64(logitStatsParts(c.VocabSize)) + scratch + 8
}

// gpuTopK is the K reduced on the device, or 0 when the host does it (K = 0 means
// the whole vocabulary; K above maxGPUTopK is rare enough to copy the row).
func gpuTopK(topK, vocab int) int {
	if topK <= 0 || topK >= vocab || topK > maxGPUTopK {
		return 0
	}
	return topK
}

// planMemory is the device memory of an engine for c with options o.
func planMemory(c *engine.Config, o engine.Options) memoryPlan {
	p := memoryPlan{
		Weights:     planWeights(c).Total,
		KVCache:     kvBytes(c, o.Slots, o.MaxSeqLen),
		Rope:        int64(o.MaxSeqLen) * int64(c.HeadDim) * 4,
		PrefixCache: int64(prefixBlocks(c, o.PrefixCacheBytes)) * prefixBlockBytes(c),
		Reserve:     reserveBytes,
		TokenCap:    tokenCapFor(o.Slots),
	}
	p.Activations = int64(p.TokenCap)*activationBytesPerToken(c) + attnPartBytes(c.HeadDim)
	p.Outputs = int64(o.Slots) * outputBytesPerSlot(c, o.TopK)
	return p
}

// fitPrefixCache caps the prefix cache with engine.CapPrefixCache against free
// device bytes, as the CPU engine does with host memory.
func fitPrefixCache(c *engine.Config, o engine.Options, free int64) engine.Options {
	if o.PrefixCacheBytes <= 0 {
		return o
	}
	rest := o
	rest.PrefixCacheBytes = -1
	o.PrefixCacheBytes = engine.CapPrefixCache(o.PrefixCacheBytes, free, planMemory(c, rest).Total())
	return o
}

// checkFits returns nil when plan fits in free bytes, or an error that says what the
// request needs and what would fit: the largest slot count at this MaxSeqLen and the
// longest MaxSeqLen at this slot count.
func checkFits(c *engine.Config, o engine.Options, free int64, device int) error {
	p := planMemory(c, o)
	if p.Total() <= free {
		return nil
	}
	need := fmt.Sprintf("%s weights + %s KV cache (%d slots × %d tokens) + %s buffers + %s prefix cache + %s reserved",
		engine.GiB(p.Weights), engine.GiB(p.KVCache), o.Slots, o.MaxSeqLen, engine.GiB(p.Activations+p.Outputs+p.Rope), engine.GiB(p.PrefixCache), engine.GiB(p.Reserve))
	fitsWith := func(slots, maxSeq int) bool {
		q := o
		q.Slots, q.MaxSeqLen = slots, maxSeq
		return planMemory(c, q).Total() <= free
	}
	if !fitsWith(1, 1) {
		return fmt.Errorf("out of device memory on GPU %d: the model needs %s, %s free — the weights alone do not fit",
			device, need, engine.GiB(free))
	}
	advice := engine.FitAdvice(o.Slots, o.MaxSeqLen, fitsWith)
	if advice == "" {
		advice = "fewer slots and a shorter max sequence length"
	}
	return fmt.Errorf("out of device memory on GPU %d: %s needed, %s free; fits: %s",
		device, need, engine.GiB(free), advice)
}
