package cpu

// kvCache holds every layer's rotated keys and values in float32 (the goldens'
// precision), laid out [slot][position][kv_heads·head_dim] per layer. It is
// allocated once for Slots × MaxSeqLen; the OS backs pages only when written, so
// an unused tail costs address space, not memory.
type kvCache struct {
	maxSeq, kvDim int
	k, v          [][]float32 // per layer
	lens          []int       // tokens committed per slot
}

func newKVCache(layers, slots, maxSeq, kvDim int) *kvCache {
	c := &kvCache{maxSeq: maxSeq, kvDim: kvDim, lens: make([]int, slots)}
	for l := 0; l < layers; l++ {
		c.k = append(c.k, make([]float32, slots*maxSeq*kvDim))
		c.v = append(c.v, make([]float32, slots*maxSeq*kvDim))
	}
	return c
}

// offset is where (slot, pos) starts in a layer's k or v.
func (c *kvCache) offset(slot, pos int) int { return (slot*c.maxSeq + pos) * c.kvDim }

// store writes one token's keys and values; positions past the slot's committed
// length are scratch until the step that wrote them commits.
func (c *kvCache) store(layer, slot, pos int, k, v []float32) {
	o := c.offset(slot, pos)
	copy(c.k[layer][o:o+c.kvDim], k)
	copy(c.v[layer][o:o+c.kvDim], v)
}
