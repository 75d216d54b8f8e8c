package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// prefixStore keeps computed prompt blocks for later sequences (engine.PrefixSharer).
// A block's keys and values are copied out of the slot that computed them and
// copied into the slots that reuse them; a position's keys and values depend only
// on the tokens up to it (the engine is chunk- and batch-invariant), so a copied
// block holds exactly the bits a recomputation would produce.
type prefixStore struct {
	index *prefixcache.Index
	// data[id] is block id: for each layer, BlockTokens rows of keys then of values.
	data [][]float32
	// publish[slot] is the prompt a slot was started with and how far its blocks
	// are stored; nil when the slot stores nothing.
	publish []*publishing
}

type publishing struct {
	prompt []int32
	last   *prefixcache.Block // the slot's last stored block, pinned; nil at the start
	blocks int                // blocks of prompt stored (or found stored)
}

// newPrefixStore sizes the index to the byte budget; nil when sharing is off or
// the budget holds no block.
func newPrefixStore(layers, kvDim, slots int, budget int64) *prefixStore {
	blockBytes := int64(layers) * 2 * prefixcache.BlockTokens * int64(kvDim) * 4
	if budget <= 0 || budget < blockBytes {
		return nil
	}
	index, err := prefixcache.New(int(budget / blockBytes))
	if err != nil {
		return nil
	}
	return &prefixStore{index: index, publish: make([]*publishing, slots)}
}

// CachedPrefix implements engine.PrefixSharer.
func (e *Engine) CachedPrefix(prompt []int32) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.prefix == nil || e.closed {
		return 0
	}
	return e.prefix.index.Match(prompt, len(prompt)-1).Tokens()
}

// AttachPrefix implements engine.PrefixSharer.
func (e *Engine) AttachPrefix(slot int, prompt []int32) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return 0, fmt.Errorf("cpu engine: attach prefix after Close")
	case slot < 0 || slot >= e.opts.Slots:
		return 0, fmt.Errorf("cpu engine: attach prefix: slot %d outside 0..%d", slot, e.opts.Slots-1)
	case e.cache.lens[slot] != 0:
		return 0, fmt.Errorf("cpu engine: attach prefix: slot %d holds %d tokens; free it first", slot, e.cache.lens[slot])
	case len(prompt) > e.opts.MaxSeqLen:
		return 0, fmt.Errorf("cpu engine: attach prefix: prompt of %d tokens overflows the cache of %d", len(prompt), e.opts.MaxSeqLen)
	}
	p := e.prefix
	if p == nil {
		return 0, nil
	}
	p.release(slot)
	m := p.index.Match(prompt, len(prompt)-1)
	for i, b := range m.Chain {
		p.load(e.cache, slot, i*prefixcache.BlockTokens, b, prefixcache.BlockTokens)
	}
	if m.Tail != nil {
		p.load(e.cache, slot, len(m.Chain)*prefixcache.BlockTokens, m.Tail, m.TailLen)
	}
	pub := &publishing{prompt: append([]int32(nil), prompt...), blocks: len(m.Chain)}
	if len(m.Chain) > 0 {
		pub.last = m.Chain[len(m.Chain)-1]
		p.index.Pin(pub.last)
	}
	p.publish[slot] = pub
	n := m.Tokens()
	e.cache.lens[slot] = n
	return n, nil
}

// load copies the first rows positions of block b into slot from position pos.
func (p *prefixStore) load(c *kvCache, slot, pos int, b *prefixcache.Block, rows int) {
	d, span, o := p.data[b.ID], prefixcache.BlockTokens*c.kvDim, c.offset(slot, pos)
	n := rows * c.kvDim
	for l := range c.k {
		copy(c.k[l][o:o+n], d[2*l*span:2*l*span+n])
		copy(c.v[l][o:o+n], d[(2*l+1)*span:(2*l+1)*span+n])
	}
}

// save copies rows positions of slot from position pos into block b's storage.
func (p *prefixStore) save(c *kvCache, slot, pos int, b *prefixcache.Block, rows int) {
	span := prefixcache.BlockTokens * c.kvDim
	for len(p.data) <= b.ID {
		p.data = append(p.data, nil)
	}
	if p.data[b.ID] == nil {
		p.data[b.ID] = make([]float32, 2*len(c.k)*span)
	}
	d, o, n := p.data[b.ID], c.offset(slot, pos), rows*c.kvDim
	for l := range c.k {
		copy(d[2*l*span:2*l*span+n], c.k[l][o:o+n])
		copy(d[(2*l+1)*span:(2*l+1)*span+n], c.v[l][o:o+n])
	}
}

// storeBlocks copies the prompt blocks that a step's input (fed at positions from
// start) completed in its slot into the store. A slot fed other tokens than the
// prompt it was attached with, or finding the store full of blocks in use, stops
// storing: sharing is lost, never correctness.
func (e *Engine) storeBlocks(inp engine.Input, start int) {
	p, slot := e.prefix, inp.Slot
	if p == nil || p.publish[slot] == nil {
		return
	}
	pub, c := p.publish[slot], e.cache
	for j, t := range inp.Tokens {
		if start+j < len(pub.prompt) && pub.prompt[start+j] != t {
			p.release(slot)
			return
		}
	}
	const B = prefixcache.BlockTokens
	full := min(c.lens[slot], len(pub.prompt)) / B
	for ; pub.blocks < full; pub.blocks++ {
		start := pub.blocks * B
		b, fresh, ok := p.index.Insert(pub.last, pub.prompt[start:start+B])
		if !ok {
			p.release(slot)
			return
		}
		if fresh {
			p.save(c, slot, start, b, B)
		}
		p.index.Pin(b)
		p.index.Unpin(pub.last)
		pub.last = b
	}
	if c.lens[slot] < len(pub.prompt) {
		return
	}
	// The whole prompt is in: store its last, partial block as a leaf, so the
	// next sequence with this prompt computes only its last token.
	if start := full * B; start < len(pub.prompt) {
		if b, fresh, ok := p.index.Insert(pub.last, pub.prompt[start:]); ok && fresh {
			p.save(c, slot, start, b, len(pub.prompt)-start)
		}
	}
	p.release(slot)
}

// release ends a slot's storing and drops its pin.
func (p *prefixStore) release(slot int) {
	if pub := p.publish[slot]; pub != nil {
		p.index.Unpin(pub.last)
		p.publish[slot] = nil
	}
}

var _ engine.PrefixSharer = (*Engine)(nil)
