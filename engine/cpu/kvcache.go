package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// kvCache holds every layer's rotated keys and values in float32 (the goldens'
// precision), laid out [slot][kv head][position][head_dim] per layer: the
// positions one attention task reads (a slot's kv head) are one contiguous run,
// which the hardware prefetchers stream from memory (interleaved with the other
// heads, [slot][position][kv_heads·head_dim], they read a third of every row's
// lines at SmolLM2's three kv heads, and a batch's own recent positions, which
// come from memory, took about 20% longer to score and 35% longer to sum;
// BenchmarkAttentionKernels at n = 65,536 against stride 64). It is allocated
// once for Slots × MaxSeqLen; the OS backs pages only when written, so an unused
// tail costs address space, not memory.
type kvCache struct {
	maxSeq, kvHeads, headDim int
	k, v                     [][]float32 // per layer
	lens                     []int       // tokens committed per slot
}

func newKVCache(layers, slots, maxSeq, kvHeads, headDim int) *kvCache {
	c := &kvCache{maxSeq: maxSeq, kvHeads: kvHeads, headDim: headDim, lens: make([]int, slots)}
	for l := 0; l < layers; l++ {
		c.k = append(c.k, make([]float32, slots*maxSeq*kvHeads*headDim))
		c.v = append(c.v, make([]float32, slots*maxSeq*kvHeads*headDim))
	}
	return c
}

// at is where kv head kvh of (slot, pos) starts in a layer's k or v; the next
// position's is headDim floats on.
func (c *kvCache) at(slot, kvh, pos int) int {
	return ((slot*c.kvHeads+kvh)*c.maxSeq + pos) * c.headDim
}

// store writes one token's keys and values (kv_heads·head_dim floats each, head
// by head); positions past the slot's committed length are scratch until the
// step that wrote them commits.
func (c *kvCache) store(layer, slot, pos int, k, v []float32) {
	hd := c.headDim
	for h := range c.kvHeads {
		o := c.at(slot, h, pos)
		copy(c.k[layer][o:o+hd], k[h*hd:(h+1)*hd])
		copy(c.v[layer][o:o+hd], v[h*hd:(h+1)*hd])
	}
}

// memoryPlan is what an engine allocates besides its memory-mapped weights,
// computed before the first allocation so that an oversized request (say
// --batch-size 100000000) fails with advice instead of crashing out of memory.
// The cache is counted whole although the OS backs its pages only when written:
// a long run writes them all.
type memoryPlan struct {
	KVCache, Buffers int64
	BF16             int64 // BF16 precision's repacked weights and packed activations (bf16PlanBytes)
}

func (p memoryPlan) total() int64 { return p.KVCache + p.Buffers + p.BF16 }

// planMemory sizes the KV cache and the largest step's buffers (see grow): token
// rows up to slots × prefill chunk, per-input logits, attention scores and output
// Dist (its candidates and, with the whole vocabulary, the logits copy a declared
// Need sorts from), one scratch per thread (a weight tile, a group's attention
// rows), the RoPE table.
func planMemory(c *engine.Config, o engine.Options, tile int) memoryPlan {
	slots, maxSeq := int64(o.Slots), int64(o.MaxSeqLen)
	hid, qDim, kvDim := int64(c.HiddenSize), int64(c.Heads*c.HeadDim), int64(c.KVHeads*c.HeadDim)
	chunk := int64(o.PrefillChunk)
	if chunk <= 0 || chunk > maxSeq {
		chunk = maxSeq
	}
	const f32 = 4
	perRow := f32 * (2*hid + 2*qDim + 2*kvDim + 2*int64(c.Intermediate))
	vocab, cands := int64(c.VocabSize), int64(c.VocabSize)
	dist := f32 * vocab // the Dist's copy of the logits (metrics.FillDistNeed)
	if o.TopK > 0 && int64(o.TopK) < vocab {
		cands, dist = int64(o.TopK), 0
	}
	dist += 8 * cands // metrics.Candidate: id and logit
	perInput := f32*(hid+vocab+int64(c.Heads)*maxSeq) + dist
	perThread := f32 * (int64(tile) + int64(c.Heads/c.KVHeads)*maxSeq)
	p := memoryPlan{
		KVCache: 2 * f32 * int64(c.Layers) * slots * maxSeq * kvDim,
		Buffers: slots*chunk*perRow + slots*perInput + int64(o.Threads)*perThread + f32*maxSeq*int64(c.HeadDim),
	}
	if o.MatmulPrecision == engine.MatmulBF16 {
		p.BF16 = bf16PlanBytes(c, slots*chunk)
	}
	return p
}

// checkBudget returns nil when the plan fits in available bytes, else an error
// saying what the request needs and what would fit, as the CUDA backend does.
func checkBudget(c *engine.Config, o engine.Options, tile int, available int64) error {
	p := planMemory(c, o, tile)
	if p.total() <= available {
		return nil
	}
	fits := func(slots, maxSeq int) bool {
		q := o
		q.Slots, q.MaxSeqLen = slots, maxSeq
		return planMemory(c, q, tile).total() <= available
	}
	advice := engine.FitAdvice(o.Slots, o.MaxSeqLen, fits)
	if advice == "" {
		advice = "nothing: even one slot of one token does not"
	}
	bf16 := ""
	if p.BF16 > 0 {
		bf16 = fmt.Sprintf(" + %s of bf16 weight panels (--matmul-precision bf16)", engine.GiB(p.BF16))
	}
	return fmt.Errorf("out of memory: %s KV cache (%d slots × %d tokens) + %s buffers%s needed, %s available; fits: %s",
		engine.GiB(p.KVCache), o.Slots, o.MaxSeqLen, engine.GiB(p.Buffers), bf16, engine.GiB(available), advice)
}
