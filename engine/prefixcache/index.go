// Package prefixcache is the host-side bookkeeping of prompt-prefix sharing: which
// fixed-size token blocks of which prompts have their keys and values stored, under
// a block budget with least-recently-used eviction. It holds no tensors: a backend
// keeps the data of block b at storage index b.ID (host or device memory) and copies
// it in and out, so the CPU and CUDA engines can share this one index.
//
// A block is identified by its tokens and its parent block (the tokens before it),
// compared exactly, so two prompts share a block only when they agree on every token
// up to its end — as vLLM's automatic prefix caching does, without trusting a hash.
// A prompt's last, partial block is stored too (as a leaf), and a block may be
// reused in part: the first m rows of a stored block serve any prompt that agrees
// with its first m tokens, since a position's keys and values depend only on the
// tokens up to it.
package prefixcache

import (
	"container/list"
	"fmt"
)

// BlockTokens is the number of tokens in a full block.
const BlockTokens = 16

// Block is one stored block: BlockTokens tokens, or fewer for a prompt's last block.
type Block struct {
	// ID is the block's storage index, in [0, capacity).
	ID     int
	parent *Block
	key    blockKey
	// refs counts the full children stored under this block plus the pins held on
	// it; only a block with no refs may be evicted, so a stored chain never loses a
	// block in its middle.
	refs int
	kids []*Block      // blocks stored under this one, full and partial
	elem *list.Element // in Index.lru
}

// Len is the number of tokens in the block.
func (b *Block) Len() int { return int(b.key.n) }

type blockKey struct {
	parent *Block // nil for a prompt's first block
	n      int8   // tokens used, BlockTokens for a full block
	tokens [BlockTokens]int32
}

// Index maps token blocks to storage indices.
type Index struct {
	capacity int
	blocks   map[blockKey]*Block
	roots    []*Block   // blocks without a parent, for partial matches
	lru      *list.List // front: most recently used
	free     []int      // storage indices of evicted blocks
	next     int        // storage indices handed out so far
	// Evictions counts blocks dropped to make room.
	Evictions int
}

// New returns an index of at most capacity blocks (capacity ≥ 1).
func New(capacity int) (*Index, error) {
	if capacity < 1 {
		return nil, fmt.Errorf("prefix cache: capacity %d blocks; want at least 1", capacity)
	}
	return &Index{capacity: capacity, blocks: map[blockKey]*Block{}, lru: list.New()}, nil
}

// Capacity is the most blocks the index holds.
func (x *Index) Capacity() int { return x.capacity }

// Len is the number of blocks stored.
func (x *Index) Len() int { return len(x.blocks) }

func keyOf(parent *Block, tokens []int32) blockKey {
	k := blockKey{parent: parent, n: int8(len(tokens))}
	copy(k.tokens[:], tokens)
	return k
}

// Match is the longest stored prefix of a prompt: whole blocks, then the first
// TailLen rows of Tail (nil when no stored block continues the chain).
type Match struct {
	Chain   []*Block
	Tail    *Block
	TailLen int
}

// Tokens is the number of prompt tokens the match covers.
func (m Match) Tokens() int { return len(m.Chain)*BlockTokens + m.TailLen }

// Match returns the longest stored prefix of tokens[:limit] and marks its blocks
// recently used.
func (x *Index) Match(tokens []int32, limit int) Match {
	limit = min(limit, len(tokens))
	var m Match
	var parent *Block
	end := 0
	for ; end+BlockTokens <= limit; end += BlockTokens {
		b, ok := x.blocks[keyOf(parent, tokens[end:end+BlockTokens])]
		if !ok {
			break
		}
		m.Chain = append(m.Chain, b)
		parent = b
	}
	// The rest may agree with the start of a stored block under the chain's end.
	kids := x.roots
	if parent != nil {
		kids = parent.kids
	}
	rest := tokens[end:limit]
	for _, k := range kids {
		n := CommonPrefix(k.key.tokens[:k.key.n], rest)
		if n > m.TailLen {
			m.Tail, m.TailLen = k, n
		}
	}
	// Leaf first, so along a chain the root ends up most recent: eviction (which
	// takes the least recent block without refs) then trims chains from their ends.
	if m.Tail != nil {
		x.lru.MoveToFront(m.Tail.elem)
	}
	for i := len(m.Chain) - 1; i >= 0; i-- {
		x.lru.MoveToFront(m.Chain[i].elem)
	}
	return m
}

// CommonPrefix is the number of leading tokens a and b share.
func CommonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Insert returns the block of tokens (1 to BlockTokens of them; fewer only for a
// prompt's last block, which stays a leaf) under parent, storing a new one when
// there is none; fresh tells the caller to copy the data into storage index b.ID.
// When the index is full it evicts the least recently used block nobody refers
// to; if every block is referred to, ok is false and nothing is stored. parent
// must be a full block of this index that the caller holds pinned.
func (x *Index) Insert(parent *Block, tokens []int32) (b *Block, fresh, ok bool) {
	if len(tokens) < 1 || len(tokens) > BlockTokens || (parent != nil && parent.Len() != BlockTokens) {
		panic(fmt.Sprintf("prefixcache: Insert of %d tokens under a block of %d", len(tokens), parent.Len()))
	}
	k := keyOf(parent, tokens)
	if b, ok := x.blocks[k]; ok {
		x.lru.MoveToFront(b.elem)
		return b, false, true
	}
	id := -1
	switch {
	case len(x.free) > 0:
		id = x.free[len(x.free)-1]
		x.free = x.free[:len(x.free)-1]
	case x.next < x.capacity:
		id = x.next
		x.next++
	default:
		victim := x.evictable()
		if victim == nil {
			return nil, false, false
		}
		x.remove(victim)
		x.Evictions++
		id = x.free[len(x.free)-1]
		x.free = x.free[:len(x.free)-1]
	}
	b = &Block{ID: id, parent: parent, key: k}
	b.elem = x.lru.PushFront(b)
	x.blocks[k] = b
	if parent == nil {
		x.roots = append(x.roots, b)
	} else {
		parent.kids = append(parent.kids, b)
		if b.Len() == BlockTokens {
			parent.refs++
		}
	}
	return b, true, true
}

// evictable is the least recently used block without refs, or nil.
func (x *Index) evictable() *Block {
	for e := x.lru.Back(); e != nil; e = e.Prev() {
		if b := e.Value.(*Block); b.refs == 0 {
			return b
		}
	}
	return nil
}

// remove drops b and the partial blocks under it.
func (x *Index) remove(b *Block) {
	for _, k := range b.kids { // refs == 0: only partial kids, which are leaves
		x.drop(k)
	}
	x.drop(b)
	if p := b.parent; p != nil {
		if b.Len() == BlockTokens {
			p.refs--
		}
		p.kids = without(p.kids, b)
	} else {
		x.roots = without(x.roots, b)
	}
}

func (x *Index) drop(b *Block) {
	delete(x.blocks, b.key)
	x.lru.Remove(b.elem)
	x.free = append(x.free, b.ID)
}

func without(bs []*Block, b *Block) []*Block {
	for i, c := range bs {
		if c == b {
			return append(bs[:i], bs[i+1:]...)
		}
	}
	return bs
}

// Pin keeps b (and so its ancestors) from eviction until Unpin; nil is ignored.
func (x *Index) Pin(b *Block) {
	if b != nil {
		b.refs++
	}
}

// Unpin releases a Pin; nil is ignored.
func (x *Index) Unpin(b *Block) {
	if b != nil {
		b.refs--
	}
}
