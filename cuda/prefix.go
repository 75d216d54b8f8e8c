package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// prefixStore keeps computed prompt blocks on the device for later sequences
// (engine.PrefixSharer). prefixcache.Slots, shared with the CPU engine, decides
// what to store and reuse; the blocks live in a device pool and are copied device to
// device between it and the slots, on the engine's stream, so the copies are ordered
// with the kernels that write and read the cache. A position's keys and values
// depend only on the tokens up to it, so a copied block holds what a recomputation
// would write (bit for bit where the GEMM does not change its summation order with
// the batch shape: the emulator and the host-compiled kernels).
type prefixStore struct {
	*prefixcache.Slots
	p *pipeline
	// pool is the block storage, bf16 [block][layer][K, V][kv head][BlockTokens][head dim]:
	// one block's rows of one head are contiguous, as they are in the cache.
	pool dptr
}

// prefixBlockBytes is the device storage of one block: BlockTokens positions of
// BF16 keys and values in every layer.
func prefixBlockBytes(c *engine.Config) int64 {
	return 2 * 2 * int64(c.Layers) * prefixcache.BlockTokens * int64(c.KVHeads) * int64(c.HeadDim)
}

// prefixBlocks is the number of blocks a byte budget holds (0: sharing off).
func prefixBlocks(c *engine.Config, budget int64) int {
	if budget <= 0 {
		return 0
	}
	return int(budget / prefixBlockBytes(c))
}

// setupPrefix allocates the block pool the plan budgets; no pool, no sharing.
func (p *pipeline) setupPrefix() error {
	n := prefixBlocks(&p.cfg, p.plan.PrefixCache)
	if n == 0 {
		return nil
	}
	pool, err := p.be.alloc(int64(n)*prefixBlockBytes(&p.cfg), "prefix cache")
	if err != nil {
		return err
	}
	store := &prefixStore{p: p, pool: pool}
	if store.Slots, err = prefixcache.NewSlots(n, p.opts.Slots, store); err != nil {
		return err
	}
	p.prefix = store
	return nil
}

// cachedPrefix is how many tokens attachPrefix would reuse for prompt now.
func (p *pipeline) cachedPrefix(prompt []int32) int {
	if p.prefix == nil {
		return 0
	}
	return p.prefix.Cached(prompt)
}

// attachPrefix starts the empty slot with the longest stored prefix of prompt, at
// most len(prompt)−1 tokens (the last one is always computed, so Step returns the
// first Output), and returns the slot's length. The caller holds the device.
func (p *pipeline) attachPrefix(slot int, prompt []int32) (int, error) {
	if err := engine.CheckAttach(slot, p.lens, len(prompt), p.opts.MaxSeqLen); err != nil {
		return 0, err
	}
	if p.prefix == nil {
		return 0, nil
	}
	n, err := p.prefix.Attach(slot, prompt)
	if err != nil {
		return 0, err
	}
	p.lens[slot] = n
	return n, nil
}

// free empties a slot and ends its storing.
func (p *pipeline) free(slot int) {
	if slot < 0 || slot >= len(p.lens) {
		return
	}
	p.lens[slot] = 0
	if p.prefix != nil {
		p.prefix.Release(slot)
	}
}

// Load implements prefixcache.Storage: block b's first rows positions into slot.
func (s *prefixStore) Load(slot, pos int, b *prefixcache.Block, rows int) error {
	return s.copyBlock(false, slot, pos, b, rows)
}

// Save implements prefixcache.Storage: rows positions of slot into block b.
func (s *prefixStore) Save(slot, pos int, b *prefixcache.Block, rows int) error {
	return s.copyBlock(true, slot, pos, b, rows)
}

// copyBlock copies the first rows positions of block b between the pool and slot
// from position pos: out of the slot (toPool) or into it, one contiguous run per
// layer, K or V, and kv head.
func (s *prefixStore) copyBlock(toPool bool, slot, pos int, b *prefixcache.Block, rows int) error {
	p := s.p
	c, o := &p.cfg, &p.opts
	row := int64(c.HeadDim) * 2
	layerKV := int64(o.Slots) * int64(c.KVHeads) * int64(o.MaxSeqLen) * row
	block := s.pool + dptr(int64(b.ID)*prefixBlockBytes(c))
	for l := range c.Layers {
		for kv, cache := range [2]dptr{p.kc, p.vc} {
			for h := range c.KVHeads {
				at := cache + dptr(int64(l)*layerKV+((int64(slot)*int64(c.KVHeads)+int64(h))*int64(o.MaxSeqLen)+int64(pos))*row)
				stored := block + dptr(((int64(l)*2+int64(kv))*int64(c.KVHeads)+int64(h))*prefixcache.BlockTokens*row)
				dst, src := at, stored
				if toPool {
					dst, src = stored, at
				}
				if err := p.be.copyDevice(dst, src, int64(rows)*row); err != nil {
					return fmt.Errorf("prefix cache: copying block %d of slot %d: %w", b.ID, slot, err)
				}
			}
		}
	}
	return nil
}

// storeBlocks stores the prompt blocks a step's input (fed at positions from start)
// completed in its slot.
func (p *pipeline) storeBlocks(inp engine.Input, start int) error {
	if p.prefix == nil {
		return nil
	}
	return p.prefix.Stored(inp.Slot, inp.Tokens, start, p.lens[inp.Slot])
}
