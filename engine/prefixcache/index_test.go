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

// store inserts every full block of tokens as a chain and returns the chain.
func store(t *testing.T, x *Index, tokens []int32) []*Block {
	t.Helper()
	var chain []*Block
	var parent *Block
	for s := 0; s+BlockTokens <= len(tokens); s += BlockTokens {
		b, _, ok := x.Insert(parent, tokens[s:s+BlockTokens])
		require.True(t, ok)
		chain = append(chain, b)
		parent = b
	}
	return chain
}

func TestMatch(t *testing.T) {
	x, err := New(8)
	require.NoError(t, err)
	a := blocks(100, 3)
	store(t, x, a)
	other := append(append([]int32(nil), a[:BlockTokens]...), blocks(900, 2)...)
	for _, tc := range []struct {
		name   string
		tokens []int32
		limit  int
		want   int
	}{
		{"whole", a, len(a), 3},
		{"limit cuts a block", a, len(a) - 1, 2},
		{"longer prompt", append(append([]int32(nil), a...), 7, 8, 9), 100, 3},
		{"diverges in block 2", other, len(other), 1},
		{"first token differs", append([]int32{5}, a[1:]...), len(a), 0},
		{"shorter than a block", a[:BlockTokens-1], 100, 0},
		{"same tokens, other position", a[BlockTokens:], 100, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Len(t, x.Match(tc.tokens, tc.limit), tc.want)
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
	require.Len(t, x.Match(blocks(500, 2), 100), 1, "b0 is still there")
	require.Len(t, x.Match(blocks(0, 2), 100), 2)
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
	require.Len(t, x.Match(blocks(900, 1), 100), 0)
}

func TestNewRejectsNoCapacity(t *testing.T) {
	_, err := New(0)
	require.ErrorContains(t, err, "capacity 0")
}
