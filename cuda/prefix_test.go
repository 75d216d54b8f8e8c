package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// prefixPrompts are a golden prompt followed by random ids: a (45 tokens: two full
// blocks and a 13-token leaf), b (agrees with a on 20 tokens), c (a and 15 more)
// and d (none of a).
func prefixPrompts(t *testing.T, golden []int32, vocab int) (a, b, c, d []int32) {
	r := rand.New(rand.NewPCG(16, 3))
	ids := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.IntN(vocab))
		}
		return s
	}
	a = append(append([]int32(nil), golden...), ids(45-len(golden))...)
	b = append(append([]int32(nil), a[:20]...), ids(17)...)
	require.NotEqual(t, a[20], b[20])
	c = append(append([]int32(nil), a...), ids(15)...)
	d = ids(33)
	require.NotEqual(t, a[0], d[0])
	return a, b, c, d
}

// feed runs prompt from position start of slot in chunks, then decodes greedily,
// and returns the prompt's output and each decoded step's.
func feed(t *testing.T, e engine.Engine, slot int, prompt []int32, start, chunk, decode int) []engine.Output {
	t.Helper()
	var out []engine.Output
	for s := start; s < len(prompt); s += chunk {
		out = step(t, e, engine.Input{Slot: slot, Tokens: prompt[s:min(len(prompt), s+chunk)]})
	}
	outs := []engine.Output{out[0]}
	for range decode {
		out = step(t, e, engine.Input{Slot: slot, Tokens: []int32{out[0].Dist.Candidates[0].ID}})
		outs = append(outs, out[0])
	}
	return outs
}

// sameOutputs requires a run with a prefix attached to give exactly what the run
// from scratch gave: the copied keys and values are the bits the prefill wrote, and
// a row's computation does not depend on the rows beside it.
func sameOutputs(t *testing.T, where string, want, got []engine.Output) {
	t.Helper()
	require.Len(t, got, len(want), where)
	for i := range want {
		require.Equal(t, want[i].Dist, got[i].Dist, "%s: output %d", where, i)
		require.Equal(t, want[i].Attn, got[i].Attn, "%s: output %d attention statistics", where, i)
	}
}

// The pipeline's prefix sharing (device-to-device block copies on the test device)
// gives the outputs of a prefill from scratch: a sibling of a live slot, a refilled
// slot reusing part of a block, a prompt continuing a stored leaf in chunks.
func TestPrefixSharingMatchesRecompute(t *testing.T) {
	for _, sm := range []sharedModel{sharedModels[0], sharedModels[2]} {
		m, cases := loadShared(t, sm)
		a, b, c, _ := prefixPrompts(t, cases[1].PromptIDs, m.Config.VocabSize)
		o := engine.Options{Slots: 3, MaxSeqLen: 80, MetricLayer: -1}
		ref := newEmulated(t, m, o)
		want := map[string][]engine.Output{}
		for name, p := range map[string][]int32{"a": a, "b": b, "c": c} {
			ref.Free(0)
			want[name] = feed(t, ref, 0, p, 0, len(p), 3)
		}

		o.PrefixCacheBytes = 8 * prefixBlockBytes(&m.Config)
		e := newEmulated(t, m, o)
		require.NotNil(t, e.prefix)
		require.Equal(t, 8, e.prefix.Index.Capacity())
		n, err := e.AttachPrefix(0, a)
		require.NoError(t, err)
		require.Zero(t, n, "nothing stored yet")
		sameOutputs(t, sm.Name+"/first", want["a"], feed(t, e, 0, a, 0, 7, 3))
		require.Equal(t, len(a)-1, e.CachedPrefix(a), "the last prompt token is always computed")

		// A sibling while slot 0 is still live.
		n, err = e.AttachPrefix(1, a)
		require.NoError(t, err)
		require.Equal(t, len(a)-1, n)
		require.Equal(t, n, e.Len(1))
		sameOutputs(t, sm.Name+"/sibling", want["a"], feed(t, e, 1, a, n, 16, 3))

		// A refilled slot: one whole block and 4 rows of the next.
		e.Free(1)
		n, err = e.AttachPrefix(1, b)
		require.NoError(t, err)
		require.Equal(t, 20, n)
		sameOutputs(t, sm.Name+"/refilled", want["b"], feed(t, e, 1, b, n, 16, 3))

		// A longer prompt: the 13-token leaf, then its own tokens in chunks of 5.
		n, err = e.AttachPrefix(2, c)
		require.NoError(t, err)
		require.Equal(t, len(a), n)
		sameOutputs(t, sm.Name+"/continued", want["c"], feed(t, e, 2, c, n, 5, 3))
		require.Equal(t, len(c)-1, e.CachedPrefix(c), "c's blocks were stored as they completed")
		require.Zero(t, e.prefix.Index.Evictions)
	}
}

// A full pool evicts the least recently used blocks (whose storage the next prompt
// overwrites) and what is left still gives exact outputs.
func TestPrefixSharingEviction(t *testing.T) {
	sm := sharedModels[3]
	m, cases := loadShared(t, sm)
	a, _, _, d := prefixPrompts(t, cases[1].PromptIDs, m.Config.VocabSize)
	o := engine.Options{Slots: 2, MaxSeqLen: 64, MetricLayer: -1}
	ref := newEmulated(t, m, o)
	wantA := feed(t, ref, 0, a, 0, len(a), 2)
	wantD := feed(t, ref, 1, d, 0, len(d), 2)

	o.PrefixCacheBytes = 3*prefixBlockBytes(&m.Config) + 100
	e := newEmulated(t, m, o)
	require.Equal(t, 3, e.prefix.Index.Capacity())
	require.Equal(t, 3*prefixBlockBytes(&m.Config), e.plan.PrefixCache, "whole blocks only")
	for _, slot := range []int{0, 1} {
		n, err := e.AttachPrefix(slot, a)
		require.NoError(t, err)
		require.Equal(t, []int{0, len(a) - 1}[slot], n)
		sameOutputs(t, "a", wantA, feed(t, e, slot, a, n, len(a), 2))
		e.Free(slot)
	}
	// d's two blocks and leaf take the place of a's.
	n, err := e.AttachPrefix(0, d)
	require.NoError(t, err)
	require.Zero(t, n)
	sameOutputs(t, "d", wantD, feed(t, e, 0, d, 0, 11, 2))
	require.Equal(t, 2, e.prefix.Index.Evictions, "a's leaf goes with its parent")
	require.Zero(t, e.CachedPrefix(a))
	n, err = e.AttachPrefix(1, d)
	require.NoError(t, err)
	require.Equal(t, len(d)-1, n)
	sameOutputs(t, "d again", wantD, feed(t, e, 1, d, n, 1, 2))
	// A slot fed other tokens than its prompt stores nothing more.
	e.Free(0)
	_, err = e.AttachPrefix(0, a)
	require.NoError(t, err)
	step(t, e, engine.Input{Slot: 0, Tokens: d[:prefixcache.BlockTokens]})
	require.False(t, e.prefix.Storing(0))
	require.Equal(t, len(d)-1, e.CachedPrefix(d))
}

func TestAttachPrefixErrors(t *testing.T) {
	m, cases := loadShared(t, sharedModels[0])
	o := engine.Options{Slots: 1, MaxSeqLen: 40, MetricLayer: -1, PrefixCacheBytes: 1 << 20}
	e := newEmulated(t, m, o)
	_, err := e.AttachPrefix(1, cases[2].PromptIDs)
	require.ErrorContains(t, err, "slot 1 outside 0..0")
	_, err = e.AttachPrefix(0, make([]int32, 41))
	require.ErrorContains(t, err, "prompt of 41 tokens overflows the cache of 40")
	step(t, e, engine.Input{Slot: 0, Tokens: cases[2].PromptIDs})
	_, err = e.AttachPrefix(0, cases[2].PromptIDs)
	require.ErrorContains(t, err, "slot 0 holds 33 tokens; free it first")

	off := newEmulated(t, m, engine.Options{Slots: 1, MaxSeqLen: 40, MetricLayer: -1})
	require.Nil(t, off.prefix)
	n, err := off.AttachPrefix(0, cases[2].PromptIDs)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Zero(t, off.CachedPrefix(cases[2].PromptIDs))
}
