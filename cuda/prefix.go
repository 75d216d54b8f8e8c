package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// prefixStore keeps computed prompt blocks on the device for later sequences
// (engine.PrefixSharer), with the host-side index the CPU engine uses. A block's
// keys and values are copied device to device out of the slot that computed them
// and into the slots that reuse them, on the engine's stream, so the copies are
// ordered with the kernels that write and read the cache. A position's keys and
// values depend only on the tokens up to it, so a copied block holds what a
// recomputation would write (bit for bit where the GEMM does not change its
// summation order with the batch shape: the emulator and the host-compiled kernels).
type prefixStore struct {
	index *prefixcache.Index
	// pool is the block storage, bf16 [block][layer][K, V][kv head][BlockTokens][head dim]:
	// one block's rows of one head are contiguous, as they are in the cache.
	pool dptr
	// publish[slot] is the prompt a slot was started with and how far its blocks
	// are stored; nil when the slot stores nothing.
	publish []*publishing
}

type publishing struct {
	prompt []int32
	last   *prefixcache.Block // the slot's last stored block, pinned; nil at the start
	blocks int                // blocks of prompt stored (or found stored)
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
	index, err := prefixcache.New(n)
	if err != nil {
		return err
	}
	pool, err := p.be.alloc(int64(n)*prefixBlockBytes(&p.cfg), "prefix cache")
	if err != nil {
		return err
	}
	p.prefix = &prefixStore{index: index, pool: pool, publish: make([]*publishing, p.opts.Slots)}
	return nil
}

// cachedPrefix is how many tokens attachPrefix would reuse for prompt now.
func (p *pipeline) cachedPrefix(prompt []int32) int {
	if p.prefix == nil {
		return 0
	}
	return p.prefix.index.Match(prompt, len(prompt)-1).Tokens()
}

// attachPrefix starts the empty slot with the longest stored prefix of prompt, at
// most len(prompt)−1 tokens (the last one is always computed, so Step returns the
// first Output), and returns the slot's length. The caller holds the device.
func (p *pipeline) attachPrefix(slot int, prompt []int32) (int, error) {
	switch {
	case slot < 0 || slot >= p.opts.Slots:
		return 0, fmt.Errorf("attach prefix: slot %d outside 0..%d", slot, p.opts.Slots-1)
	case p.lens[slot] != 0:
		return 0, fmt.Errorf("attach prefix: slot %d holds %d tokens; free it first", slot, p.lens[slot])
	case len(prompt) > p.opts.MaxSeqLen:
		return 0, fmt.Errorf("attach prefix: prompt of %d tokens overflows the cache of %d", len(prompt), p.opts.MaxSeqLen)
	}
	s := p.prefix
	if s == nil {
		return 0, nil
	}
	s.release(slot)
	m := s.index.Match(prompt, len(prompt)-1)
	for i, b := range m.Chain {
		if err := p.copyBlock(false, slot, i*prefixcache.BlockTokens, b, prefixcache.BlockTokens); err != nil {
			return 0, err
		}
	}
	if m.Tail != nil {
		if err := p.copyBlock(false, slot, len(m.Chain)*prefixcache.BlockTokens, m.Tail, m.TailLen); err != nil {
			return 0, err
		}
	}
	pub := &publishing{prompt: append([]int32(nil), prompt...), blocks: len(m.Chain)}
	if len(m.Chain) > 0 {
		pub.last = m.Chain[len(m.Chain)-1]
		s.index.Pin(pub.last)
	}
	s.publish[slot] = pub
	n := m.Tokens()
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
		p.prefix.release(slot)
	}
}

// copyBlock copies the first rows positions of block b between the pool and slot
// from position pos: into the slot (toPool false) or out of it.
func (p *pipeline) copyBlock(toPool bool, slot, pos int, b *prefixcache.Block, rows int) error {
	c, o := &p.cfg, &p.opts
	row := int64(c.HeadDim) * 2
	layerKV := int64(o.Slots) * int64(c.KVHeads) * int64(o.MaxSeqLen) * row
	block := p.prefix.pool + dptr(int64(b.ID)*prefixBlockBytes(c))
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

// storeBlocks copies the prompt blocks that a step's input (fed at positions from
// start) completed in its slot into the pool. A slot fed other tokens than the
// prompt it was attached with, or finding the pool full of blocks in use, stops
// storing: sharing is lost, never correctness.
func (p *pipeline) storeBlocks(inp engine.Input, start int) error {
	s, slot := p.prefix, inp.Slot
	if s == nil || s.publish[slot] == nil {
		return nil
	}
	pub := s.publish[slot]
	for j, t := range inp.Tokens {
		if start+j < len(pub.prompt) && pub.prompt[start+j] != t {
			s.release(slot)
			return nil
		}
	}
	const B = prefixcache.BlockTokens
	length := p.lens[slot]
	full := min(length, len(pub.prompt)) / B
	for ; pub.blocks < full; pub.blocks++ {
		start := pub.blocks * B
		b, fresh, ok := s.index.Insert(pub.last, pub.prompt[start:start+B])
		if !ok {
			s.release(slot)
			return nil
		}
		if fresh {
			if err := p.copyBlock(true, slot, start, b, B); err != nil {
				return err
			}
		}
		s.index.Pin(b)
		s.index.Unpin(pub.last)
		pub.last = b
	}
	if length < len(pub.prompt) {
		return nil
	}
	// The whole prompt is in: store its last, partial block as a leaf, so the
	// next sequence with this prompt computes only its last token.
	defer s.release(slot)
	if start := full * B; start < len(pub.prompt) {
		if b, fresh, ok := s.index.Insert(pub.last, pub.prompt[start:]); ok && fresh {
			return p.copyBlock(true, slot, start, b, len(pub.prompt)-start)
		}
	}
	return nil
}

// release ends a slot's storing and drops its pin.
func (s *prefixStore) release(slot int) {
	if pub := s.publish[slot]; pub != nil {
		s.index.Unpin(pub.last)
		s.publish[slot] = nil
	}
}
