package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// A step whose inputs name different attention views (interleaved, so the host
// must regroup them: one launch of the statistics kernels per view) gives each output exactly
// what an engine defaulting to that view gives it alone.
func TestEmulatedPerInputAttnViews(t *testing.T) {
	m, cases := loadShared(t, sharedModels[0])
	views := []metrics.AttnView{
		{Mode: metrics.Padded, PadLen: 4096}, {Mode: metrics.Masked}, {Mode: metrics.Padded, PadLen: 2048},
		{Mode: metrics.Padded, PadLen: 4096}, {Mode: metrics.Masked},
	}
	base := engine.Options{Slots: len(views), MaxSeqLen: 64, MetricLayer: -1}
	var in []engine.Input
	for i := range views {
		in = append(in, engine.Input{Slot: i, Tokens: cases[i%len(cases)].PromptIDs, Attn: &views[i]})
	}
	got := step(t, newEmulated(t, m, base), in...)
	for i, v := range views {
		o := base
		o.Slots, o.AttnMode, o.PadLen = 1, v.Mode, v.PadLen
		alone := step(t, newEmulated(t, m, o), engine.Input{Slot: 0, Tokens: in[i].Tokens})
		require.Equal(t, alone[0].Attn.HeadEntropy, got[i].Attn.HeadEntropy, "input %d view %s", i, v)
		require.Equal(t, alone[0].Attn.Agreement, got[i].Attn.Agreement, "input %d view %s", i, v)
		require.Equal(t, alone[0].Attn.InteractionStrength, got[i].Attn.InteractionStrength, "input %d view %s", i, v)
		require.Equal(t, v, got[i].Attn.View)
		require.Equal(t, alone[0].Attn.Slots, got[i].Attn.Slots)
	}
}
