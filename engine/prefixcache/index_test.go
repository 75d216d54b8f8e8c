package prefixcache

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// blocks returns n blocks' worth of tokens, token i of block j being base+j·B+i.
func blocks(base int32, n int) []int32 {
	out := make([]int32, n*BlockTokens)
	for i := range out {
		out[i] = base + int32(i)
	}
	return out
}

// store inserts tokens as a chain of blocks (the last one partial when
// len(tokens) is not a multiple of BlockTokens) and returns the chain.
func store(t *testing.T, x *Index, tokens []int32) []*Block {
	t.Helper()
	var chain []*Block
	var parent *Block
	for s := 0; s < len(tokens); s += BlockTokens {
		b, _, ok := x.Insert(parent, tokens[s:min(len(tokens), s+BlockTokens)])
		require.True(t, ok)
		chain = append(chain, b)
		parent = b
	}
	return chain
}

func with(a []int32, more ...int32) []int32 { return append(append([]int32(nil), a...), more...) }

func TestMatch(t *testing.T) {
	x, err := New(8)
	require.NoError(t, err)
	a := blocks(100, 3)
	store(t, x, a)
	tailed := with(blocks(5000, 1), 1, 2, 3, 4, 5) // a full block and a 5-token leaf
	store(t, x, tailed)
	other := with(a[:BlockTokens], blocks(900, 2)...)
	B := BlockTokens
	for _, tc := range []struct {
		name         string
		tokens       []int32
		limit        int
		blocks, tail int
	}{
		{"whole", a, len(a), 3, 0},
		{"limit cuts a block: its start is reused", a, len(a) - 1, 2, B - 1},
		{"longer prompt", with(a, 7, 8, 9), 100, 3, 0},
		{"diverges in block 2", other, len(other), 1, 0},
		{"diverges inside block 2", with(a[:B+5], 77), 100, 1, 5},
		{"first token differs", with([]int32{5}, a[1:]...), len(a), 0, 0},
		{"shorter than a block", a[:B-1], 100, 0, B - 1},
		{"same tokens, other position", a[B:], 100, 0, 0},
		{"partial leaf, whole", tailed, 100, 1, 5},
		{"partial leaf, limit", tailed, len(tailed) - 1, 1, 4},
		{"partial leaf, prompt goes on", with(tailed, 6, 7), 100, 1, 5},
		{"partial leaf, diverges", with(tailed[:B+2], 9, 9), 100, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := x.Match(tc.tokens, tc.limit)
			require.Len(t, m.Chain, tc.blocks)
			require.Equal(t, tc.tail, m.TailLen)
			require.Equal(t, tc.blocks*B+tc.tail, m.Tokens())
			require.Equal(t, tc.tail == 0, m.Tail == nil)
		})
	}
}

func TestInsertFindsExisting(t *testing.T) {
	x, _ := New(4)
	first := store(t, x, blocks(0, 2))
	b, fresh, ok := x.Insert(nil, blocks(0, 1))
	require.True(t, ok)
	require.False(t, fresh)
	require.Same(t, first[0], b)
	require.Equal(t, 2, x.Len())
}

// TestEviction fills the index and checks that the least recently used leaf goes
// first, that a parent outlives its children, and that pinned blocks stay.
func TestEviction(t *testing.T) {
	x, _ := New(4)
	a := store(t, x, blocks(0, 2))   // a0 ← a1
	b := store(t, x, blocks(500, 2)) // b0 ← b1
	x.Match(blocks(0, 2), 100)       // a used more recently than b
	c, fresh, ok := x.Insert(nil, blocks(900, 1))
	require.True(t, ok)
	require.True(t, fresh)
	require.Equal(t, b[1].ID, c.ID, "the storage of b's leaf is reused")
	require.Len(t, x.Match(blocks(500, 2), 100).Chain, 1, "b0 is still there")
	require.Len(t, x.Match(blocks(0, 2), 100).Chain, 2)
	require.Equal(t, 1, x.Evictions)

	// Pin everything that is left: nothing can be evicted, Insert says so.
	x.Pin(a[1])
	x.Pin(b[0])
	x.Pin(c)
	_, _, ok = x.Insert(nil, blocks(2000, 1))
	require.False(t, ok)
	x.Unpin(c)
	_, _, ok = x.Insert(nil, blocks(2000, 1))
	require.True(t, ok, "c unpinned and evicted")
	require.Zero(t, x.Match(blocks(900, 1), 100).Tokens())
}

// TestEvictionTakesPartialLeaves checks that a partial block does not hold its
// parent (it is a leaf) and goes with it when the parent is evicted.
func TestEvictionTakesPartialLeaves(t *testing.T) {
	x, _ := New(3)
	parent := store(t, x, blocks(0, 1))[0]
	store(t, x, blocks(700, 1))
	leaf, _, ok := x.Insert(parent, []int32{1, 2, 3}) // the most recent: LRU is leaf, 700, parent
	require.True(t, ok)
	require.Zero(t, parent.refs, "a partial child adds no ref")
	_, _, ok = x.Insert(nil, blocks(800, 1)) // full: evicts the parent, and its leaf with it
	require.True(t, ok)
	require.Equal(t, 2, x.Len())
	require.Zero(t, x.Match(with(blocks(0, 1), 1, 2, 3), 100).Tokens())
	require.Equal(t, BlockTokens, x.Match(blocks(700, 1), 100).Tokens())
	require.Len(t, x.free, 1, "the leaf's storage is free too")
	require.NotEqual(t, leaf.ID, parent.ID)
}
