package prefixcache

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a Storage that records the copies asked of it.
type recorder struct{ calls []string }

func (r *recorder) Load(slot, pos int, b *Block, rows int) error {
	r.calls = append(r.calls, fmt.Sprintf("load slot %d pos %d block %d rows %d", slot, pos, b.ID, rows))
	return nil
}

func (r *recorder) Save(slot, pos int, b *Block, rows int) error {
	r.calls = append(r.calls, fmt.Sprintf("save slot %d pos %d block %d rows %d", slot, pos, b.ID, rows))
	return nil
}

func (r *recorder) take() []string { c := r.calls; r.calls = nil; return c }

// The copies Slots asks for as a 40-token prompt is computed in two steps, reused by
// a sibling, and partly reused by a prompt that diverges inside the second block.
func TestSlotsCopies(t *testing.T) {
	r := &recorder{}
	s, err := NewSlots(8, 3, r)
	require.NoError(t, err)
	p := blocks(0, 3)[:40]
	n, err := s.Attach(0, p)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, r.take())

	require.NoError(t, s.Stored(0, p[:20], 0, 20))
	require.Equal(t, []string{"save slot 0 pos 0 block 0 rows 16"}, r.take())
	require.True(t, s.Storing(0))
	require.NoError(t, s.Stored(0, p[20:], 20, 40))
	require.Equal(t, []string{"save slot 0 pos 16 block 1 rows 16", "save slot 0 pos 32 block 2 rows 8"}, r.take())
	require.False(t, s.Storing(0), "the whole prompt is stored")
	require.Equal(t, 39, s.Cached(p))

	n, err = s.Attach(1, p)
	require.NoError(t, err)
	require.Equal(t, 39, n)
	require.Equal(t, []string{"load slot 1 pos 0 block 0 rows 16", "load slot 1 pos 16 block 1 rows 16",
		"load slot 1 pos 32 block 2 rows 7"}, r.take())
	require.NoError(t, s.Stored(1, p[39:], 39, 40))
	require.Empty(t, r.take(), "every block was there")

	q := with(p[:20], 900, 901, 902)
	n, err = s.Attach(2, q)
	require.NoError(t, err)
	require.Equal(t, 20, n)
	require.Equal(t, []string{"load slot 2 pos 0 block 0 rows 16", "load slot 2 pos 16 block 1 rows 4"}, r.take())
	require.NoError(t, s.Stored(2, q[20:], 20, 23))
	require.Equal(t, []string{"save slot 2 pos 16 block 3 rows 7"}, r.take(), "q's leaf")

	// A slot fed other tokens than its prompt stops storing.
	_, err = s.Attach(2, q)
	require.NoError(t, err)
	r.take()
	require.NoError(t, s.Stored(2, []int32{7}, 22, 23))
	require.False(t, s.Storing(2))
	require.Empty(t, r.take())
}
