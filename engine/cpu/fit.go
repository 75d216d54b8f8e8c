package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// MaxSlots is the largest slot count in 1..hi whose KV cache and buffers fit in
// the memory available now at o's other options (o.Slots is ignored) — what
// lm-eval's --batch_size auto asks for. known is false when the platform does not
// say how much memory is available; hi is returned then.
func MaxSlots(m *engine.Model, o engine.Options, hi int) (slots int, known bool, err error) {
	if m == nil || hi < 1 {
		return 0, false, fmt.Errorf("cpu engine: MaxSlots needs a model and hi >= 1")
	}
	c := m.Config
	o.Slots = 1
	o, err = resolveOptions(&c, o)
	if err != nil {
		return 0, false, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
	}
	avail, ok := availableMemory()
	if !ok {
		return hi, false, nil
	}
	return slotsWithin(&c, o, hi, avail), true, nil
}

// slotsWithin is the largest slot count in 1..hi whose plan fits in avail bytes.
func slotsWithin(c *engine.Config, o engine.Options, hi int, avail int64) int {
	tile := weightTile(c)
	return engine.Largest(hi, func(n int) bool {
		q := o
		q.Slots = n
		return planMemory(c, q, tile).total() <= avail
	})
}

// weightTile is the widened weight tile's length in floats for a model.
func weightTile(c *engine.Config) int {
	return max(tileFloats, c.HiddenSize, c.Intermediate, c.Heads*c.HeadDim)
}
