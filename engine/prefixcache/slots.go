package prefixcache

// Storage is where a backend keeps the keys and values of the blocks: storage index
// b.ID, in host or device memory. Load copies the first rows positions of block b
// into slot from position pos; Save copies rows positions of slot from pos into b.
type Storage interface {
	Load(slot, pos int, b *Block, rows int) error
	Save(slot, pos int, b *Block, rows int) error
}

// Slots is the engine side of prefix sharing over an Index: which prompt each slot
// was started with and how far its blocks are stored. An engine calls Attach to
// start a slot, Stored after each step and Release when a slot is freed; Slots
// decides what to copy and Storage copies it.
type Slots struct {
	Index   *Index
	storage Storage
	publish []*publishing // by slot; nil when the slot stores nothing
}

type publishing struct {
	prompt []int32
	last   *Block // the slot's last stored block, pinned; nil at the start
	blocks int    // blocks of prompt stored (or found stored)
}

// NewSlots shares prefixes among slots through an index of capacity blocks.
func NewSlots(capacity, slots int, storage Storage) (*Slots, error) {
	index, err := New(capacity)
	if err != nil {
		return nil, err
	}
	return &Slots{Index: index, storage: storage, publish: make([]*publishing, slots)}, nil
}

// Cached is how many tokens Attach would reuse for prompt now: at most all but
// its last token, which the engine always computes (so the first output comes from
// a step as without sharing).
func (s *Slots) Cached(prompt []int32) int { return s.Index.Match(prompt, len(prompt)-1).Tokens() }

// Attach loads the longest stored prefix of prompt (at most len(prompt)−1 tokens)
// into the empty slot, starts storing the slot's blocks of prompt, and returns how
// many tokens the slot now holds.
func (s *Slots) Attach(slot int, prompt []int32) (int, error) {
	s.Release(slot)
	m := s.Index.Match(prompt, len(prompt)-1)
	for i, b := range m.Chain {
		if err := s.storage.Load(slot, i*BlockTokens, b, BlockTokens); err != nil {
			return 0, err
		}
	}
	if m.Tail != nil {
		if err := s.storage.Load(slot, len(m.Chain)*BlockTokens, m.Tail, m.TailLen); err != nil {
			return 0, err
		}
	}
	pub := &publishing{prompt: append([]int32(nil), prompt...), blocks: len(m.Chain)}
	if len(m.Chain) > 0 {
		pub.last = m.Chain[len(m.Chain)-1]
		s.Index.Pin(pub.last)
	}
	s.publish[slot] = pub
	return m.Tokens(), nil
}

// Stored saves the prompt blocks that tokens, fed to slot at positions from start
// (the slot now holding length tokens), completed. A slot fed other tokens than the
// prompt it was attached with, or finding the index full of blocks in use, stops
// storing: sharing is lost, never correctness.
func (s *Slots) Stored(slot int, tokens []int32, start, length int) error {
	pub := s.publish[slot]
	if pub == nil {
		return nil
	}
	for j, t := range tokens {
		if start+j < len(pub.prompt) && pub.prompt[start+j] != t {
			s.Release(slot)
			return nil
		}
	}
	full := min(length, len(pub.prompt)) / BlockTokens
	for ; pub.blocks < full; pub.blocks++ {
		at := pub.blocks * BlockTokens
		b, fresh, ok := s.Index.Insert(pub.last, pub.prompt[at:at+BlockTokens])
		if !ok {
			s.Release(slot)
			return nil
		}
		if fresh {
			if err := s.storage.Save(slot, at, b, BlockTokens); err != nil {
				s.Release(slot)
				return err
			}
		}
		s.Index.Pin(b)
		s.Index.Unpin(pub.last)
		pub.last = b
	}
	if length < len(pub.prompt) {
		return nil
	}
	// The whole prompt is in: store its last, partial block as a leaf, so the next
	// sequence with this prompt computes only its last token.
	defer s.Release(slot)
	if at := full * BlockTokens; at < len(pub.prompt) {
		if b, fresh, ok := s.Index.Insert(pub.last, pub.prompt[at:]); ok && fresh {
			return s.storage.Save(slot, at, b, len(pub.prompt)-at)
		}
	}
	return nil
}

// Storing reports whether slot is still storing the blocks of its prompt.
func (s *Slots) Storing(slot int) bool { return s.publish[slot] != nil }

// Release ends a slot's storing and drops its pin (when the slot is freed).
func (s *Slots) Release(slot int) {
	if pub := s.publish[slot]; pub != nil {
		s.Index.Unpin(pub.last)
		s.publish[slot] = nil
	}
}
