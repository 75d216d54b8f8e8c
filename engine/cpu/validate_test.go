package cpu

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

func tinyModel(t testing.TB) *engine.Model {
	t.Helper()
	spec, err := engine.TestModelPreset("tiny")
	require.NoError(t, err)
	return buildModel(t, spec)
}

func TestStepRejectsBadInput(t *testing.T) {
	m := tinyModel(t)
	vocab := int32(m.Config.VocabSize)
	cases := []struct {
		name string
		in   []engine.Input
		want string
	}{
		{"slot too big", []engine.Input{{Slot: 2, Tokens: []int32{1}}}, "slot 2 outside 0..1"},
		{"negative slot", []engine.Input{{Slot: -1, Tokens: []int32{1}}}, "slot -1 outside"},
		{"same slot twice", []engine.Input{{Slot: 0, Tokens: []int32{1}}, {Slot: 0, Tokens: []int32{2}}}, "appears twice"},
		{"no tokens", []engine.Input{{Slot: 1}}, "no tokens"},
		{"token = vocab", []engine.Input{{Slot: 0, Tokens: []int32{1, vocab}}}, "token 256 at index 1 outside the vocabulary"},
		{"negative token", []engine.Input{{Slot: 0, Tokens: []int32{-3}}}, "token -3"},
		{"cache overflow", []engine.Input{{Slot: 0, Tokens: make([]int32, 6)}}, "2 cached + 6 new tokens overflow the cache of 7"},
		{"over prefill chunk", []engine.Input{{Slot: 1, Tokens: make([]int32, 7)}}, "exceed the prefill chunk of 6"},
	}
	e := newEngine(t, m, engine.Options{Slots: 2, MaxSeqLen: 7, PrefillChunk: 6})
	step(t, e, engine.Input{Slot: 0, Tokens: []int32{1, 2}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out []engine.Output
			err := e.Step(context.Background(), c.in, &out)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, 2, e.Len(0), "a failed step changes nothing")
			require.Zero(t, e.Len(1))
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out []engine.Output
		require.ErrorIs(t, e.Step(ctx, []engine.Input{{Slot: 1, Tokens: []int32{3}}}, &out), context.Canceled)
		require.Zero(t, e.Len(1))
	})
	t.Run("nil output", func(t *testing.T) {
		require.Error(t, e.Step(context.Background(), []engine.Input{{Slot: 1, Tokens: []int32{3}}}, nil))
	})
	t.Run("empty batch", func(t *testing.T) {
		out := make([]engine.Output, 3)
		require.NoError(t, e.Step(context.Background(), nil, &out))
		require.Empty(t, out)
	})
	t.Run("after close", func(t *testing.T) {
		e2 := newEngine(t, m, engine.Options{})
		require.NoError(t, e2.Close())
		var out []engine.Output
		require.ErrorContains(t, e2.Step(context.Background(), []engine.Input{{Slot: 0, Tokens: []int32{1}}}, &out), "after Close")
		require.Zero(t, e2.Len(0))
	})
	t.Run("out-of-range slot queries", func(t *testing.T) {
		require.Zero(t, e.Len(99))
		e.Free(-1) // no panic
	})
}

func TestOptions(t *testing.T) {
	m := tinyModel(t)
	t.Run("defaults", func(t *testing.T) {
		e := newEngine(t, m, engine.Options{MetricLayer: -1})
		o := e.Options()
		require.Equal(t, 1, o.Slots)
		require.Equal(t, m.Config.MaxPositions, o.MaxSeqLen)
		require.Equal(t, m.Config.Layers-1, o.MetricLayer)
		require.Positive(t, o.Threads)
		require.Same(t, e.Config(), e.Config())
		require.Equal(t, m.Config.HiddenSize, e.Config().HiddenSize)
	})
	t.Run("padded stats use PadLen slots", func(t *testing.T) {
		e := newEngine(t, m, engine.Options{MaxSeqLen: 64, AttnMode: metrics.Padded, MetricLayer: -1})
		require.Equal(t, 4096, e.Options().PadLen)
		out := step(t, e, engine.Input{Slot: 0, Tokens: []int32{1, 2, 3}})
		require.Equal(t, 4096, out[0].Attn.Slots)
		require.Greater(t, out[0].Attn.Entropy, 11.9) // near log2(4096): empty slots dominate
	})
	t.Run("top-k", func(t *testing.T) {
		e := newEngine(t, m, engine.Options{TopK: 5})
		out := step(t, e, engine.Input{Slot: 0, Tokens: []int32{1}})
		require.Len(t, out[0].Dist.Candidates, 5)
		require.Equal(t, m.Config.VocabSize, out[0].Dist.VocabSize)
		require.Positive(t, out[0].Dist.TailMass)
	})
	for _, c := range []struct {
		name string
		o    engine.Options
		want string
	}{
		{"negative top-k", engine.Options{TopK: -1}, "top-k -1"},
		{"metric layer too big", engine.Options{MetricLayer: 2}, "metric layer 2 outside 0..1"},
		{"metric layer below -1", engine.Options{MetricLayer: -2}, "metric layer -2"},
		{"pad shorter than cache", engine.Options{AttnMode: metrics.Padded, PadLen: 16, MaxSeqLen: 32}, "pad length 16 below"},
		{"negative prefill chunk", engine.Options{PrefillChunk: -1}, "prefill chunk -1"},
		{"unknown attention mode", engine.Options{AttnMode: 7}, "attention mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(m, c.o)
			require.ErrorContains(t, err, c.want)
		})
	}
	t.Run("nil model", func(t *testing.T) {
		_, err := New(nil, engine.Options{})
		require.Error(t, err)
	})
}

// TestRejectsMismatchedWeights checks that a tensor whose shape disagrees with the
// config is reported by name rather than read out of bounds.
func TestRejectsMismatchedWeights(t *testing.T) {
	m := tinyModel(t)
	bad := *m
	bad.Tensors = map[string]*engine.Tensor{}
	for k, v := range m.Tensors {
		bad.Tensors[k] = v
	}
	w := *bad.Tensors["model.layers.1.mlp.up_proj.weight"]
	w.Shape = []int{w.Shape[1], w.Shape[0]}
	bad.Tensors[w.Name] = &w
	_, err := New(&bad, engine.Options{})
	require.ErrorContains(t, err, "model.layers.1.mlp.up_proj.weight")

	delete(bad.Tensors, "model.norm.weight")
	_, err = New(&bad, engine.Options{})
	require.ErrorContains(t, err, "model.norm.weight")
}

// TestDecodeStepAllocations guards the buffer reuse: a steady-state decode step
// allocates nothing big (only goroutine bookkeeping of the parallel loops).
func TestDecodeStepAllocations(t *testing.T) {
	m := buildModel(t, invarianceSpecs["llama-bf16"])
	e := newEngine(t, m, engine.Options{Slots: 2, MaxSeqLen: 256, TopK: 8, MetricLayer: -1, Threads: 2})
	var out []engine.Output
	in := []engine.Input{{Slot: 0, Tokens: []int32{1}}, {Slot: 1, Tokens: []int32{2}}}
	require.NoError(t, e.Step(context.Background(), in, &out))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const steps = 20
	for range steps {
		require.NoError(t, e.Step(context.Background(), in, &out))
	}
	runtime.ReadMemStats(&after)
	perStep := float64(after.TotalAlloc-before.TotalAlloc) / steps
	t.Logf("%.0f bytes, %.1f allocations per decode step", perStep, float64(after.Mallocs-before.Mallocs)/steps)
	require.Less(t, perStep, 16384.0, "bytes allocated per decode step")
}
