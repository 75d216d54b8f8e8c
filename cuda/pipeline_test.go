package cuda

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// emulated runs the real pipeline (the code the GPU engine runs) on the Go emulator of
// the kernels, as an engine.Engine.
type emulated struct{ *pipeline }

func (e emulated) Config() *engine.Config  { return &e.cfg }
func (e emulated) Options() engine.Options { return e.opts }
func (e emulated) Len(slot int) int        { return e.lens[slot] }
func (e emulated) Free(slot int)           { e.free(slot) }
func (e emulated) Close() error            { return nil }
func (e emulated) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	return e.step(ctx, in, out)
}

// newTestDevice is the device the pipeline tests run on: the Go emulator of the
// kernels, or with the cudasim build tag the kernels themselves compiled for the host.
var newTestDevice = func(t testing.TB) backend { return &emulator{} }

func (e emulated) CachedPrefix(prompt []int32) int { return e.cachedPrefix(prompt) }
func (e emulated) AttachPrefix(slot int, prompt []int32) (int, error) {
	return e.attachPrefix(slot, prompt)
}

// emulatedSteps is n decode steps, or 2 for a large vocabulary: the emulator's LM head
// over 128k rows is slow.
func emulatedSteps(c *engine.Config, n int) int {
	if c.VocabSize > 10000 {
		return 2
	}
	return n
}

// newEmulated is the pipeline on the test device. Prefix sharing is off unless o
// asks for a budget: the default gigabyte would be allocated in host memory.
func newEmulated(t testing.TB, m *engine.Model, o engine.Options) emulated {
	t.Helper()
	if o.PrefixCacheBytes == 0 {
		o.PrefixCacheBytes = -1
	}
	p, err := newPipeline(m, o)
	require.NoError(t, err)
	require.NoError(t, p.setup(m, newTestDevice(t)))
	return emulated{p}
}

// The pipeline on the emulated device matches the CPU backend on every shared model,
// in both attention modes and for a non-last metric layer, through prefill and greedy
// decoding, at the GPU tests' tolerances (the emulator keeps the BF16 weights and cache).
func TestEmulatedPipelineMatchesCPU(t *testing.T) {
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		steps := emulatedSteps(&m.Config, 24)
		for _, mode := range attnModes {
			o := mode
			o.Slots, o.MaxSeqLen, o.TopK = 1, 64, 0
			g, c, orig := newEmulated(t, m, o), newCPU(t, bf16Model(t, m), o), newCPU(t, m, o)
			r := report{}
			for _, tc := range cases {
				where := fmt.Sprintf("%s/%s/layer%d/%s", sm.Name, o.AttnMode, o.MetricLayer, tc.Name)
				g.Free(0)
				c.Free(0)
				orig.Free(0)
				in := engine.Input{Slot: 0, Tokens: tc.PromptIDs}
				gOut, cOut := step(t, g, in), step(t, c, in)
				compareOutput(t, where+"/prefill", &gOut[0], &cOut[0], sm.tol, r)
				compareLogitsOnly(t, where+"/prefill", &gOut[0], &step(t, orig, in)[0], sm.tol, r)
				for s := 0; s < steps; s++ {
					gTok, cTok := gOut[0].Dist.Candidates[0].ID, cOut[0].Dist.Candidates[0].ID
					if gTok != cTok {
						require.Less(t, topMargin(&cOut[0].Dist), greedyMarginTol*math.Max(1, math.Abs(float64(cOut[0].Dist.Candidates[0].Logit))),
							"%s: greedy step %d: emulated %d, cpu %d", where, s, gTok, cTok)
						break
					}
					gOut = step(t, g, engine.Input{Slot: 0, Tokens: []int32{gTok}})
					cOut = step(t, c, engine.Input{Slot: 0, Tokens: []int32{cTok}})
					compareOutput(t, fmt.Sprintf("%s/greedy%d", where, s), &gOut[0], &cOut[0], sm.tol, r)
				}
			}
			r.log(t, fmt.Sprintf("emulated %s/%s/layer%d", sm.Name, o.AttnMode, o.MetricLayer))
		}
	}
}

// Device top-K (through the staged reduction) equals the head of the host ranking, a
// batch equals its sequences alone, and sub-batch splitting changes nothing.
func TestEmulatedTopKBatchingAndSplitting(t *testing.T) {
	for _, sm := range []sharedModel{sharedModels[0], sharedModels[2], sharedModels[4]} {
		m, cases := loadShared(t, sm)
		o := engine.Options{Slots: len(cases), MaxSeqLen: 64, MetricLayer: -1}
		var in []engine.Input
		for i, tc := range cases {
			in = append(in, engine.Input{Slot: i, Tokens: tc.PromptIDs})
		}
		full := step(t, newEmulated(t, m, o), in...)
		for i, tc := range cases {
			alone := step(t, newEmulated(t, m, o), engine.Input{Slot: 2, Tokens: tc.PromptIDs})
			require.Equal(t, alone[0].Dist, full[i].Dist, "%s case %d batched vs alone", sm.Name, i)
			require.Equal(t, alone[0].Attn.HeadEntropy, full[i].Attn.HeadEntropy)
		}
		var grouped []engine.Output
		withGroupedHeads(func() { grouped = step(t, newEmulated(t, m, o), in...) })
		for i := range cases {
			require.Equal(t, full[i].Dist, grouped[i].Dist, "%s case %d grouped heads", sm.Name, i)
		}
		split := newEmulated(t, m, o)
		split.plan.TokenCap = 5
		got := step(t, split, in...)
		for i := range cases {
			require.Equal(t, full[i].Dist, got[i].Dist, "%s case %d split", sm.Name, i)
		}
		for _, k := range []int{1, 27, 300} {
			ok := o
			ok.TopK = k
			e := newEmulated(t, m, ok)
			require.Equal(t, k, e.gpuK)
			top := step(t, e, in...)
			for i := range cases {
				require.Equal(t, full[i].Dist.Candidates[:k], top[i].Dist.Candidates, "%s k=%d case %d", sm.Name, k, i)
				require.Equal(t, full[i].Dist.LogPartition, top[i].Dist.LogPartition)
			}
		}
	}
}

// withGroupedHeads runs f with the launch layout of big grids (the query heads of a
// GQA group in one block), which small test inputs would not otherwise get.
func withGroupedHeads(f func()) {
	saved := attnMinBlocks
	attnMinBlocks = 0
	defer func() { attnMinBlocks = saved }()
	f()
}

func TestEmulatedStepErrorsKeepState(t *testing.T) {
	m, cases := loadShared(t, sharedModels[0])
	e := newEmulated(t, m, engine.Options{Slots: 2, MaxSeqLen: 40, MetricLayer: -1})
	step(t, e, engine.Input{Slot: 0, Tokens: cases[2].PromptIDs})
	var out []engine.Output
	err := e.Step(bg, []engine.Input{{Slot: 1, Tokens: []int32{1}}, {Slot: 0, Tokens: make([]int32, 8)}}, &out)
	require.ErrorContains(t, err, "33 cached + 8 new tokens overflow the cache of 40")
	require.Equal(t, 33, e.Len(0))
	require.Equal(t, 0, e.Len(1))
	ctx, cancel := context.WithCancel(bg)
	cancel()
	require.ErrorIs(t, e.Step(ctx, []engine.Input{{Slot: 1, Tokens: []int32{1}}}, &out), context.Canceled)
	require.Equal(t, 0, e.Len(1))
}

// With the whole vocabulary as candidates the host sorts only what an input's
// sampler declared (engine.Input.Need); once read to the end its Dist is the one an
// input without a Need gets.
func TestEmulatedInputNeedSortsLazily(t *testing.T) {
	m, cases := loadShared(t, sharedModels[0])
	g := newEmulated(t, m, engine.Options{Slots: 2, MaxSeqLen: 64, MetricLayer: -1})
	prompt := cases[0].PromptIDs
	out := step(t, g, engine.Input{Slot: 0, Tokens: prompt}, engine.Input{Slot: 1, Tokens: prompt, Need: &engine.Need{Top: 2}})
	full, lazy := &out[0].Dist, &out[1].Dist
	require.Less(t, len(lazy.Candidates), lazy.Len(), "the Need left candidates to sort")
	require.Equal(t, full.Len(), lazy.Len())
	require.Equal(t, math.Float64bits(full.TailMass), math.Float64bits(lazy.TailMass))
	require.Equal(t, full.Candidates, lazy.Sorted(lazy.Len()))
}
