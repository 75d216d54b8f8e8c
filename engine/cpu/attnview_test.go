package cpu

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// One step serves every input in its own attention view (a sweep's samplers need
// different ones), and each input's statistics are bit-identical to a run whose
// engine default is that view.
func TestPerInputAttnViews(t *testing.T) {
	m := buildModel(t, invarianceSpecs["llama-bf16"])
	views := []metrics.AttnView{{Mode: metrics.Masked}, {Mode: metrics.Padded, PadLen: 4096}, {Mode: metrics.Padded, PadLen: 96}}
	r := rand.New(rand.NewPCG(7, 8))
	prompt := randomIDs(r, 40, m.Config.VocabSize)
	base := engine.Options{Slots: len(views), MaxSeqLen: 64, MetricLayer: -1}
	mixed := newEngine(t, m, base)
	var in []engine.Input
	for i := range views {
		in = append(in, engine.Input{Slot: i, Tokens: prompt, Attn: &views[i]})
	}
	got := step(t, mixed, in...)
	for i, v := range views {
		o := base
		o.Slots, o.AttnMode, o.PadLen = 1, v.Mode, v.PadLen
		alone := step(t, newEngine(t, m, o), engine.Input{Slot: 0, Tokens: prompt})
		require.Equal(t, snap(t, &alone[0]), snap(t, &got[i]), "view %s", v)
		require.Equal(t, v, got[i].Attn.View)
	}
	require.Equal(t, 96, got[2].Attn.Slots)

	// A padded view the sequence outgrows is refused before any work.
	small := metrics.AttnView{Mode: metrics.Padded, PadLen: 41}
	var out []engine.Output
	err := mixed.Step(context.Background(), []engine.Input{{Slot: 0, Tokens: []int32{1, 2}, Attn: &small}}, &out)
	require.ErrorContains(t, err, "attention view padded:41: 42 keys exceed the padded cache")
	require.Equal(t, 40, mixed.Len(0))
}
