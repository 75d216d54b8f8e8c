package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// attachAndRun starts prompt in slot from the store, feeds the rest in chunks of
// at most chunk tokens, decodes greedily, and returns the snapshots and the
// number of prompt tokens reused.
func attachAndRun(t *testing.T, e *Engine, slot int, prompt []int32, chunk int) ([]snapshot, int) {
	t.Helper()
	n, err := e.AttachPrefix(slot, prompt)
	require.NoError(t, err)
	require.Equal(t, n, e.Len(slot))
	var pieces [][]int32
	for rest := prompt[n:]; len(rest) > 0; {
		k := min(chunk, len(rest))
		pieces, rest = append(pieces, rest[:k]), rest[k:]
	}
	return runAlone(t, e, slot, pieces), n
}

// TestPrefixSharingIsBitIdentical checks that a sequence started from stored
// blocks — a whole prompt again, or a shared few-shot-like prefix — gives every
// number of a sequence prefilled from scratch, and that the reuse is as long as
// the blocks allow.
func TestPrefixSharingIsBitIdentical(t *testing.T) {
	for name, spec := range invarianceSpecs {
		for _, prec := range precisions {
			t.Run(name+"/"+string(prec), func(t *testing.T) { prefixSharingIsBitIdentical(t, spec, prec) })
		}
	}
}

func prefixSharingIsBitIdentical(t *testing.T, spec engine.TestModelSpec, prec engine.MatmulPrecision) {
	const B = prefixcache.BlockTokens
	m := buildModel(t, spec)
	r := rand.New(rand.NewPCG(3, 5))
	vocab := m.Config.VocabSize
	shared := randomIDs(r, 2*B+8, vocab)
	a := append(append([]int32(nil), shared...), randomIDs(r, 17, vocab)...) // 57 tokens
	b := append(append([]int32(nil), shared...), randomIDs(r, 5, vocab)...)  // 45 tokens
	off := engine.Options{MaxSeqLen: 96, MetricLayer: -1, Threads: 1, PrefixCacheBytes: -1, MatmulPrecision: prec}
	wantA, wantB := reference(t, m, a, off), reference(t, m, b, off)

	e := newEngine(t, m, engine.Options{Slots: 3, MaxSeqLen: 96, MetricLayer: -1, Threads: 2, MatmulPrecision: prec})
	require.NotNil(t, e.prefix)
	got, n := attachAndRun(t, e, 0, a, 7)
	require.Equal(t, wantA, got, "first run of a")
	require.Zero(t, n)
	require.Equal(t, len(a)-1, e.CachedPrefix(a), "a's blocks stored, its partial last one too")

	// The same prompt in another slot while slot 0 still holds it: all but
	// its last token come from the store.
	got, n = attachAndRun(t, e, 1, a, 64)
	require.Equal(t, wantA, got, "a from the store")
	require.Equal(t, len(a)-1, n)

	// A prompt sharing 2 blocks and 8 tokens reuses those 40 tokens, the
	// last 8 from the start of a's third block.
	got, n = attachAndRun(t, e, 2, b, 3)
	require.Equal(t, wantB, got, "b over a's prefix")
	require.Equal(t, 2*B+8, n)

	// A prompt that is exactly whole blocks keeps its last token to compute.
	e.Free(0)
	got, n = attachAndRun(t, e, 0, a[:3*B], 64)
	require.Equal(t, reference(t, m, a[:3*B], off), got, "block-aligned prompt")
	require.Equal(t, 3*B-1, n)
}

// TestPrefixStoreRejectsOtherTokens checks that a slot fed tokens other than the
// prompt it was attached with stores nothing under that prompt's name.
func TestPrefixStoreRejectsOtherTokens(t *testing.T) {
	const B = prefixcache.BlockTokens
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	r := rand.New(rand.NewPCG(9, 9))
	a, other := randomIDs(r, 3*B, m.Config.VocabSize), randomIDs(r, 3*B, m.Config.VocabSize)
	e := newEngine(t, m, engine.Options{MaxSeqLen: 64, MetricLayer: -1})
	n, err := e.AttachPrefix(0, a)
	require.NoError(t, err)
	require.Zero(t, n)
	step(t, e, engine.Input{Slot: 0, Tokens: other})
	require.Zero(t, e.CachedPrefix(a))
	require.Zero(t, e.CachedPrefix(other), "other was never attached")
}

// TestPrefixStoreBudget runs more distinct prompts than the budget holds: older
// blocks are evicted, results stay exact, and the newest prompt is still there.
func TestPrefixStoreBudget(t *testing.T) {
	const B = prefixcache.BlockTokens
	m := buildModel(t, invarianceSpecs["llama-bf16"])
	c := m.Config
	blockBytes := int64(c.Layers * 2 * B * c.KVHeads * c.HeadDim * 4)
	e := newEngine(t, m, engine.Options{MaxSeqLen: 64, MetricLayer: -1, PrefixCacheBytes: 3 * blockBytes})
	require.Equal(t, 3, e.prefix.Index.Capacity())
	off := engine.Options{MaxSeqLen: 64, MetricLayer: -1, PrefixCacheBytes: -1}
	r := rand.New(rand.NewPCG(4, 4))
	var last []int32
	for i := range 4 {
		p := randomIDs(r, 2*B+1, c.VocabSize)
		got, _ := attachAndRun(t, e, 0, p, 64)
		require.Equal(t, reference(t, m, p, off), got, "prompt %d", i)
		e.Free(0)
		last = p
	}
	require.Equal(t, 2*B, e.CachedPrefix(last))
	require.Equal(t, 2*B+1, e.CachedPrefix(append(last, 5)), "its partial last block was stored")
	require.Equal(t, 3, e.prefix.Index.Len())
	require.Positive(t, e.prefix.Index.Evictions)
}

func TestPrefixSharingOff(t *testing.T) {
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	e := newEngine(t, m, engine.Options{MaxSeqLen: 64, MetricLayer: -1, PrefixCacheBytes: -1})
	require.Nil(t, e.prefix)
	p := randomIDs(rand.New(rand.NewPCG(1, 2)), 40, m.Config.VocabSize)
	_, n := attachAndRun(t, e, 0, p, 64)
	require.Zero(t, n)
	e.Free(0)
	_, n = attachAndRun(t, e, 0, p, 64)
	require.Zero(t, n)
}

func TestAttachPrefixErrors(t *testing.T) {
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	e := newEngine(t, m, engine.Options{Slots: 2, MaxSeqLen: 32, MetricLayer: -1})
	_, err := e.AttachPrefix(2, []int32{1, 2})
	require.ErrorContains(t, err, "slot 2 outside 0..1")
	_, err = e.AttachPrefix(0, make([]int32, 33))
	require.ErrorContains(t, err, "overflows the cache of 32")
	step(t, e, engine.Input{Slot: 0, Tokens: []int32{1, 2}})
	_, err = e.AttachPrefix(0, []int32{1, 2, 3})
	require.ErrorContains(t, err, "slot 0 holds 2 tokens")
}
