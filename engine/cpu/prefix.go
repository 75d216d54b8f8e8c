package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// prefixStore keeps computed prompt blocks for later sequences (engine.PrefixSharer).
// prefixcache.Slots decides what to store and reuse; prefixStore is its Storage:
// a block's keys and values are copied out of the slot that computed them and
// copied into the slots that reuse them. A position's keys and values depend only
// on the tokens up to it (the engine is chunk- and batch-invariant), so a copied
// block holds exactly the bits a recomputation would produce.
type prefixStore struct {
	*prefixcache.Slots
	cache *kvCache
	// data[id] is block id: for each layer, keys then values, each kv head's
	// BlockTokens rows in turn (the cache's order).
	data [][]float32
}

// newPrefixStore sizes the index to the byte budget; nil when sharing is off or
// the budget holds no block.
func newPrefixStore(c *kvCache, slots int, budget int64) *prefixStore {
	blockBytes := int64(len(c.k)) * 2 * prefixcache.BlockTokens * int64(c.kvHeads*c.headDim) * 4
	if budget <= 0 || budget < blockBytes {
		return nil
	}
	p := &prefixStore{cache: c}
	var err error
	if p.Slots, err = prefixcache.NewSlots(int(budget/blockBytes), slots, p); err != nil {
		return nil
	}
	return p
}

// CachedPrefix implements engine.PrefixSharer.
func (e *Engine) CachedPrefix(prompt []int32) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.prefix == nil || e.closed {
		return 0
	}
	return e.prefix.Cached(prompt)
}

// AttachPrefix implements engine.PrefixSharer.
func (e *Engine) AttachPrefix(slot int, prompt []int32) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, fmt.Errorf("cpu engine: attach prefix after Close")
	}
	if err := engine.CheckAttach(slot, e.cache.lens, len(prompt), e.opts.MaxSeqLen); err != nil {
		return 0, fmt.Errorf("cpu engine: %w", err)
	}
	if e.prefix == nil {
		return 0, nil
	}
	n, err := e.prefix.Attach(slot, prompt)
	if err != nil {
		return 0, fmt.Errorf("cpu engine: attach prefix: %w", err)
	}
	e.cache.lens[slot] = n
	e.share.attach(slot, prompt, n)
	return n, nil
}

// Load implements prefixcache.Storage: block b's first rows positions into slot
// from position pos.
func (p *prefixStore) Load(slot, pos int, b *prefixcache.Block, rows int) error {
	p.copyRows(slot, pos, b.ID, rows, false)
	return nil
}

// Save implements prefixcache.Storage: rows positions of slot from position pos
// into block b, whose storage is allocated the first time its id is used.
func (p *prefixStore) Save(slot, pos int, b *prefixcache.Block, rows int) error {
	c := p.cache
	span := prefixcache.BlockTokens * c.kvHeads * c.headDim
	for len(p.data) <= b.ID {
		p.data = append(p.data, nil)
	}
	if p.data[b.ID] == nil {
		p.data[b.ID] = make([]float32, 2*len(c.k)*span)
	}
	p.copyRows(slot, pos, b.ID, rows, true)
	return nil
}

// copyRows copies rows positions of slot from position pos between the cache and
// block id's first rows: into the block when save, else out of it.
func (p *prefixStore) copyRows(slot, pos, id, rows int, save bool) {
	c, d := p.cache, p.data[id]
	hd, n := c.headDim, rows*c.headDim
	span := prefixcache.BlockTokens * hd // one kv head's rows in a block
	for l := range c.k {
		for h := range c.kvHeads {
			o := c.at(slot, h, pos)
			kb := (2*l*c.kvHeads + h) * span
			vb := ((2*l+1)*c.kvHeads + h) * span
			if save {
				copy(d[kb:kb+n], c.k[l][o:o+n])
				copy(d[vb:vb+n], c.v[l][o:o+n])
			} else {
				copy(c.k[l][o:o+n], d[kb:kb+n])
				copy(c.v[l][o:o+n], d[vb:vb+n])
			}
		}
	}
}

// storeBlocks stores the prompt blocks that a step's input (fed at positions from
// start) completed in its slot. Copies in host memory cannot fail, so neither can
// this.
func (e *Engine) storeBlocks(inp engine.Input, start int) {
	if e.prefix != nil {
		_ = e.prefix.Stored(inp.Slot, inp.Tokens, start, e.cache.lens[inp.Slot])
	}
}

var (
	_ engine.PrefixSharer = (*Engine)(nil)
	_ prefixcache.Storage = (*prefixStore)(nil)
)
