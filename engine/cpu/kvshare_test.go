package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// seq is n tokens of a prompt family: the first shared tokens are 1, 2, … and
// the rest start at base, so two families agree on exactly their shared part.
func seq(shared, n int, base int32) []int32 {
	p := make([]int32, n)
	for i := range p {
		if i < shared {
			p[i] = int32(i + 1)
		} else {
			p[i] = base + int32(i)
		}
	}
	return p
}

// The bookkeeping, step by step: who reads which positions from where.
func TestKVShareRanges(t *testing.T) {
	k := newKVShare(4)
	a, b := seq(200, 300, 1000), seq(100, 300, 2000) // a and b share 100 tokens

	k.attach(0, a, 0) // nothing attached: slot 0 computes a itself
	k.fed(0, 0, a)
	require.Equal(t, []kvRange{{0, 0, 300}}, k.ranges(0, 300, nil))

	k.attach(1, a, 299) // a again: all but its last token from slot 0
	require.Equal(t, []kvRange{{0, 0, 299}, {1, 299, 300}}, k.ranges(1, 300, nil))
	require.Equal(t, []kvRange{{0, 0, 50}}, k.ranges(1, 50, nil))

	k.attach(2, b, 100) // b shares 100 tokens with slots 0 and 1: read from slot 0
	require.Equal(t, []kvRange{{0, 0, 100}, {2, 100, 120}}, k.ranges(2, 120, nil))

	k.attach(3, seq(200, 250, 3000), 200) // shares 200 with slot 1, which reads slot 0
	require.Equal(t, []kvSeg{{0, 200, k.gen[0]}}, k.segs[3])

	// Slot 0 ends: its readers turn to slot 1 (which read the longest stretch
	// of it, 299 positions, and holds them itself).
	k.free(0)
	require.Equal(t, []kvRange{{1, 0, 299}, {1, 299, 300}}, k.ranges(1, 300, nil))
	require.Equal(t, []kvRange{{1, 0, 100}, {2, 100, 120}}, k.ranges(2, 120, nil))
	require.Equal(t, []kvRange{{1, 0, 200}, {3, 200, 210}}, k.ranges(3, 210, nil))

	// A rewrite of slot 1's positions from 150 on (a step fed at 150 again)
	// hands its readers to slot 3, the longest reader (200 > 100).
	k.fed(1, 150, []int32{7})
	require.Equal(t, []kvRange{{3, 0, 100}, {2, 100, 120}}, k.ranges(2, 120, nil))
	require.Equal(t, []kvRange{{3, 0, 200}, {3, 200, 210}}, k.ranges(3, 210, nil))
	require.Equal(t, []kvRange{{1, 0, 150}, {1, 150, 151}}, k.ranges(1, 151, nil))
	require.Equal(t, append(a[:150:150], 7), k.tokens[1])

	// Too short a common prefix is read from the slot itself.
	k.attach(0, seq(10, 100, 4000), 63)
	require.Equal(t, []kvRange{{0, 0, 90}}, k.ranges(0, 90, nil))

	// Tokens fed past what the record knows are not recorded.
	k.fed(0, 80, []int32{1})
	require.Len(t, k.tokens[0], 63)
}

// Sequences reading a shared prefix from other slots — while those slots run,
// after they end and while their slots hold other prompts — give the bits of
// each sequence run alone without any sharing.
func TestSharedPrefixReadsAreBitIdentical(t *testing.T) {
	for _, name := range []string{"llama-bf16", "qwen2-f32"} {
		t.Run(name, func(t *testing.T) { sharedPrefixReads(t, invarianceSpecs[name]) })
	}
}

func sharedPrefixReads(t *testing.T, spec engine.TestModelSpec) {
	m := buildModel(t, spec)
	r := rand.New(rand.NewPCG(11, 12))
	vocab := m.Config.VocabSize
	fewShot := randomIDs(r, 100, vocab)
	prompt := func(n int) []int32 { return append(append([]int32(nil), fewShot...), randomIDs(r, n, vocab)...) }
	a, b := prompt(37), prompt(21)
	const steps = 20
	alone := func(p []int32) []snapshot { // the prompt, then steps greedy tokens
		e := newEngine(t, m, engine.Options{MaxSeqLen: 256, MetricLayer: -1, PrefixCacheBytes: -1})
		out := step(t, e, engine.Input{Slot: 0, Tokens: p})
		snaps := []snapshot{snap(t, &out[0])}
		for range steps {
			out = step(t, e, engine.Input{Slot: 0, Tokens: []int32{out[0].Dist.Candidates[0].ID}})
			snaps = append(snaps, snap(t, &out[0]))
		}
		return snaps
	}
	want := map[int][]snapshot{}
	wantA, wantB := alone(a), alone(b)

	e := newEngine(t, m, engine.Options{Slots: 4, MaxSeqLen: 256, MetricLayer: -1, Threads: 2})
	got := map[int][]snapshot{}
	next := map[int]int32{}
	start := func(slot int, p []int32, w []snapshot) {
		n, err := e.AttachPrefix(slot, p)
		require.NoError(t, err)
		out := step(t, e, engine.Input{Slot: slot, Tokens: p[n:]})
		got[slot], want[slot] = []snapshot{snap(t, &out[0])}, w
		next[slot] = out[0].Dist.Candidates[0].ID
	}
	decode := func(slots ...int) { // one batched step
		var in []engine.Input
		for _, s := range slots {
			in = append(in, engine.Input{Slot: s, Tokens: []int32{next[s]}})
		}
		out := step(t, e, in...)
		for i, s := range slots {
			got[s] = append(got[s], snap(t, &out[i]))
			next[s] = out[i].Dist.Candidates[0].ID
		}
	}
	check := func(slot int) {
		require.LessOrEqual(t, len(got[slot]), len(want[slot]))
		require.Equal(t, want[slot][:len(got[slot])], got[slot], "slot %d after %d outputs", slot, len(got[slot]))
	}

	start(0, a, wantA) // computes a
	decode(0)
	start(1, a, wantA) // reads a's prompt from slot 0
	start(2, b, wantB) // reads the few-shot prefix from slot 0
	require.Greater(t, len(e.share.ranges(1, len(a), nil)), 1, "slot 1 reads from slot 0")
	decode(0, 1, 2)
	decode(1, 2, 0)
	check(0)
	e.Free(0) // its readers turn to slot 1
	start(0, b, wantB)
	for range 3 {
		decode(2, 0, 1)
	}
	check(1)
	e.Free(1)
	start(3, a, wantA) // a again, from the store; reads slot 2 and 0's copies of the prefix
	for range 5 {
		decode(0, 2, 3)
	}
	for s := range 4 {
		if s != 1 {
			check(s)
		}
	}
}
