// Package prefixcache is the host-side bookkeeping of prompt-prefix sharing: which
// fixed-size token blocks of which prompts have their keys and values stored, under
// a block budget with least-recently-used eviction. It holds no tensors: a backend
// keeps the data of block b at storage index b.ID (host or device memory) and copies
// it in and out, so the CPU and CUDA engines share this one index.
//
// A block is identified by its tokens and its parent block (the tokens before it),
// compared exactly, so two prompts share a block only when they agree on every token
// up to its end — as vLLM's automatic prefix caching does, without trusting a hash.
package prefixcache

import (
	"container/list"
	"fmt"
)

// BlockTokens is the number of tokens in one block.
const BlockTokens = 16

// Block is one stored block of BlockTokens tokens.
type Block struct {
	// ID is the block's storage index, in [0, capacity).
	ID     int
	parent *Block
	key    blockKey
	// refs counts the children stored under this block plus the pins held on it;
	// only a block with no refs may be evicted, so a stored chain never loses a
	// block in its middle.
	refs int
	elem *list.Element // in Index.lru
}

type blockKey struct {
	parent *Block // nil for a prompt's first block
	tokens [BlockTokens]int32
}

// Index maps token blocks to storage indices.
type Index struct {
	capacity int
	blocks   map[blockKey]*Block
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
	k := blockKey{parent: parent}
	copy(k.tokens[:], tokens)
	return k
}

// Match returns the longest chain of stored blocks that spells a prefix of
// tokens[:limit], first block first, and marks it recently used.
func (x *Index) Match(tokens []int32, limit int) []*Block {
	limit = min(limit, len(tokens))
	var chain []*Block
	var parent *Block
	for end := BlockTokens; end <= limit; end += BlockTokens {
		b, ok := x.blocks[keyOf(parent, tokens[end-BlockTokens:end])]
		if !ok {
			break
		}
		chain = append(chain, b)
		parent = b
	}
	// Leaf first, so along a chain the root ends up most recent: eviction (which
	// takes the least recent block without refs) then trims chains from their ends.
	for i := len(chain) - 1; i >= 0; i-- {
		x.lru.MoveToFront(chain[i].elem)
	}
	return chain
}

// Insert returns the block of tokens (BlockTokens of them) under parent, storing a
// new one when there is none; fresh tells the caller to copy the data into
// storage index b.ID. When the index is full it evicts the least recently used
// block nobody refers to; if every block is referred to, ok is false and nothing
// is stored. parent must be a block of this index that the caller holds pinned.
func (x *Index) Insert(parent *Block, tokens []int32) (b *Block, fresh, ok bool) {
	if len(tokens) != BlockTokens {
		panic(fmt.Sprintf("prefixcache: Insert of %d tokens", len(tokens)))
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
	if parent != nil {
		parent.refs++
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

func (x *Index) remove(b *Block) {
	delete(x.blocks, b.key)
	x.lru.Remove(b.elem)
	if b.parent != nil {
		b.parent.refs--
	}
	x.free = append(x.free, b.ID)
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
