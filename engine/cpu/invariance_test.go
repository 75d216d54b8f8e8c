package cpu

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// invarianceSpecs are builder models big enough that matmuls go multi-threaded and
// take both the one-token and the tiled kernel, in every stored dtype.
var invarianceSpecs = map[string]engine.TestModelSpec{
	"llama-bf16": {Seed: 1, Config: engine.Config{HiddenSize: 256, Intermediate: 512, Layers: 2, Heads: 4, KVHeads: 2,
		VocabSize: 1024, MaxPositions: 256, RopeTheta: 1e4, RMSNormEps: 1e-5, TiedEmbedding: true, DType: engine.BF16}},
	"llama-f16": {Seed: 2, Config: engine.Config{HiddenSize: 256, Intermediate: 512, Layers: 2, Heads: 8, KVHeads: 1,
		VocabSize: 1024, MaxPositions: 256, RopeTheta: 1e5, RMSNormEps: 1e-5, DType: engine.F16}},
	"qwen2-f32": {Seed: 3, Config: engine.Config{Architecture: "Qwen2ForCausalLM", HiddenSize: 256, Intermediate: 512,
		Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 1024, MaxPositions: 256, RopeTheta: 1e6, RMSNormEps: 1e-6,
		TiedEmbedding: true, DType: engine.F32}},
}

func buildModel(t testing.TB, spec engine.TestModelSpec) *engine.Model {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	require.NoError(t, engine.BuildTestModel(dir, spec))
	m, err := engine.Load(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// snapshot is an Output's numbers as bits, so equality means bit-identity.
type snapshot struct {
	Logits []uint32
	Stats  [3]uint64 // log Z, entropy, varentropy
	Attn   []uint64  // head entropies, then the aggregates
}

func snap(t testing.TB, o *engine.Output) snapshot {
	t.Helper()
	var s snapshot
	for _, l := range logitsOf(t, &o.Dist) {
		s.Logits = append(s.Logits, math.Float32bits(l))
	}
	s.Stats = [3]uint64{math.Float64bits(o.Dist.LogPartition), math.Float64bits(o.Dist.Entropy), math.Float64bits(o.Dist.Varentropy)}
	for _, v := range append(append([]float64(nil), o.Attn.HeadEntropy...),
		o.Attn.Entropy, o.Attn.Varentropy, o.Attn.Agreement, o.Attn.InteractionStrength) {
		s.Attn = append(s.Attn, math.Float64bits(v))
	}
	return s
}

func randomIDs(r *rand.Rand, n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(r.IntN(vocab))
	}
	return ids
}

// chunks splits ids into pieces of the given sizes (the last takes the rest).
func chunks(ids []int32, sizes ...int) [][]int32 {
	var out [][]int32
	for _, n := range sizes {
		out = append(out, ids[:n])
		ids = ids[n:]
	}
	return append(out, ids)
}

const decodeSteps = 4

// reference runs one sequence alone: the prompt in one chunk, then greedy decode.
// It returns the snapshot after the prompt and after each decode step.
func reference(t *testing.T, m *engine.Model, prompt []int32, opts engine.Options) []snapshot {
	e := newEngine(t, m, opts)
	return runAlone(t, e, 0, [][]int32{prompt})
}

// runAlone feeds the prompt pieces to slot, then decodes greedily.
func runAlone(t *testing.T, e *Engine, slot int, pieces [][]int32) []snapshot {
	var out []engine.Output
	for _, p := range pieces {
		out = step(t, e, engine.Input{Slot: slot, Tokens: p})
	}
	snaps := []snapshot{snap(t, &out[0])}
	for range decodeSteps {
		out = step(t, e, engine.Input{Slot: slot, Tokens: []int32{out[0].Dist.Candidates[0].ID}})
		snaps = append(snaps, snap(t, &out[0]))
	}
	return snaps
}

func TestBatchInvariance(t *testing.T) {
	for name, spec := range invarianceSpecs {
		for _, prec := range precisions {
			t.Run(name+"/"+string(prec), func(t *testing.T) { batchInvariance(t, spec, prec) })
		}
	}
}

func batchInvariance(t *testing.T, spec engine.TestModelSpec, prec engine.MatmulPrecision) {
	m := buildModel(t, spec)
	r := rand.New(rand.NewPCG(7, 11))
	vocab := m.Config.VocabSize
	prompt := randomIDs(r, 13, vocab)
	opts := engine.Options{Slots: 4, MaxSeqLen: 96, MetricLayer: -1, Threads: 2, MatmulPrecision: prec}
	want := reference(t, m, prompt, engine.Options{MaxSeqLen: 96, MetricLayer: -1, Threads: 1, MatmulPrecision: prec})

	t.Run("chunked", func(t *testing.T) {
		for i, sizes := range [][]int{{4, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {12}} {
			o := opts
			o.Threads = 2 + i // more threads than cores changes nothing either
			e := newEngine(t, m, o)
			require.Equal(t, want, runAlone(t, e, 3, chunks(prompt, sizes...)), "chunks %v", sizes)
		}
	})

	t.Run("batched", func(t *testing.T) {
		e := newEngine(t, m, opts)
		// Others of different lengths share every step: a long prompt in the same
		// prefill step, a short one, and one that joins mid-way.
		long, short := randomIDs(r, 40, vocab), randomIDs(r, 3, vocab)
		var out []engine.Output
		require.NoError(t, e.Step(ctx, []engine.Input{
			{Slot: 0, Tokens: long}, {Slot: 2, Tokens: prompt}, {Slot: 1, Tokens: short}}, &out))
		got := []snapshot{snap(t, &out[1])}
		next := out[1].Dist.Candidates[0].ID
		for s := range decodeSteps {
			in := []engine.Input{{Slot: 2, Tokens: []int32{next}}, {Slot: 0, Tokens: []int32{int32(s)}}}
			if s == 1 {
				in = append(in, engine.Input{Slot: 3, Tokens: randomIDs(r, 9, vocab)})
			}
			require.NoError(t, e.Step(ctx, in, &out))
			got = append(got, snap(t, &out[0]))
			next = out[0].Dist.Candidates[0].ID
		}
		require.Equal(t, want, got)

		// Freed and refilled slots (one held a longer sequence) start afresh.
		e.Free(2)
		e.Free(0)
		require.Zero(t, e.Len(0))
		require.Equal(t, want, runAlone(t, e, 0, [][]int32{prompt}), "refilled slot 0")
		require.Equal(t, want, runAlone(t, e, 2, [][]int32{prompt[:5], prompt[5:]}), "refilled slot 2")
	})
}

// TestMetricLayer checks that the statistics follow Options.MetricLayer: -1 is the
// last layer, and another layer gives other numbers from the same forward pass.
func TestMetricLayer(t *testing.T) {
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	prompt := randomIDs(rand.New(rand.NewPCG(1, 1)), 9, m.Config.VocabSize)
	run := func(layer int) engine.Output {
		e := newEngine(t, m, engine.Options{MaxSeqLen: 16, MetricLayer: layer})
		return step(t, e, engine.Input{Slot: 0, Tokens: prompt})[0]
	}
	last, explicit, first := run(-1), run(m.Config.Layers-1), run(0)
	require.Equal(t, snap(t, &last), snap(t, &explicit))
	require.Equal(t, snap(t, &last).Logits, snap(t, &first).Logits)
	require.NotEqual(t, last.Attn.HeadEntropy, first.Attn.HeadEntropy)
}

// An input's Need only moves the sorting: its Dist, once read to the end, is the
// one an input without a Need gets, candidate for candidate, and the statistics and
// tail mass are the same bits. With Options.TopK set the Need is ignored.
func TestInputNeedSortsLazily(t *testing.T) {
	m := buildModel(t, invarianceSpecs["llama-bf16"])
	r := rand.New(rand.NewPCG(5, 6))
	prompt := randomIDs(r, 12, m.Config.VocabSize)
	for _, topK := range []int{0, 40} {
		opts := engine.Options{Slots: 2, MaxSeqLen: 64, TopK: topK, MetricLayer: -1, Threads: 2}
		e := newEngine(t, m, opts)
		need := &engine.Need{Top: 3}
		out := step(t, e, engine.Input{Slot: 0, Tokens: prompt}, engine.Input{Slot: 1, Tokens: prompt, Need: need})
		full, lazy := &out[0].Dist, &out[1].Dist
		if topK == 0 {
			require.Less(t, len(lazy.Candidates), lazy.Len(), "the Need left candidates to sort")
		}
		require.Equal(t, full.Len(), lazy.Len())
		require.Equal(t, math.Float64bits(full.TailMass), math.Float64bits(lazy.TailMass))
		require.Equal(t, math.Float64bits(full.LogPartition), math.Float64bits(lazy.LogPartition))
		require.Equal(t, full.Candidates, lazy.Sorted(lazy.Len()))
	}
}
