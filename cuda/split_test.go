package cuda

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Batch invariance is not promised on the GPU (cuBLAS picks kernels by shape, and a
// bf16 rounding flip propagates), nor between a split and an unsplit attention launch
// for rows longer than one span (the softmax sums meet in another order); these bounds
// only catch real mixing of sequences or keys.
const (
	batchRelL2    = 5e-3
	batchStatsTol = 5e-3
)

// withSplitKeys runs f with attention split into spans of n keys wherever it splits.
func withSplitKeys(n int, f func()) {
	saved := attnSplitKeys
	attnSplitKeys = n
	defer func() { attnSplitKeys = saved }()
	f()
}

// checkSplitAttention decodes each shared model's longest golden prompt for 8 greedy
// steps (the unsplit engine's tokens) on an engine from newEng as configured, where
// these short rows are never split, and on one whose attention splits rows into
// 32-key spans (decode steps: one row, one head per block), and requires the same
// top token (where its margin is outside the BF16 noise, as against the CPU) and
// logits, entropy and attention entropy within the batching bounds.
func checkSplitAttention(t *testing.T, newEng func(testing.TB, *engine.Model, engine.Options) engine.Engine) {
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		prompt := cases[0].PromptIDs
		for _, c := range cases {
			if len(c.PromptIDs) > len(prompt) {
				prompt = c.PromptIDs
			}
		}
		o := engine.Options{Slots: 1, MaxSeqLen: len(prompt) + 9, MetricLayer: -1}
		require.Less(t, o.MaxSeqLen, attnSplitKeys, "%s: the reference never splits", sm.Name)
		var split engine.Engine
		withSplitKeys(32, func() { split = newEng(t, m, o) })
		whole := newEng(t, m, o)
		in := engine.Input{Tokens: prompt}
		r := report{}
		splits := 0
		for s := 0; s <= 8; s++ {
			want := step(t, whole, in)[0]
			var got engine.Output
			withSplitKeys(32, func() {
				got = step(t, split, in)[0]
				if s > 0 && attnGeometry(m.Config.Heads, m.Config.KVHeads, m.Config.HeadDim, len(prompt)+s, 1).splits > 1 {
					splits++
				}
			})
			e := relL2(fullLogits(t, &got.Dist), fullLogits(t, &want.Dist))
			r.see("logits_rel_l2", e)
			require.LessOrEqual(t, e, batchRelL2, "%s step %d", sm.Name, s)
			if margin := topMargin(&want.Dist); margin > greedyMarginTol*math.Max(1, math.Abs(float64(want.Dist.Candidates[0].Logit))) {
				require.Equal(t, want.Dist.Candidates[0].ID, got.Dist.Candidates[0].ID, "%s step %d: top-1 (margin %g)", sm.Name, s, margin)
			}
			require.InDelta(t, want.Dist.Entropy, got.Dist.Entropy, batchStatsTol*math.Max(1, want.Dist.Entropy), "%s step %d", sm.Name, s)
			r.see("attn_entropy", math.Abs(want.Attn.Entropy-got.Attn.Entropy))
			require.InDelta(t, want.Attn.Entropy, got.Attn.Entropy, batchStatsTol, "%s step %d", sm.Name, s)
			in = engine.Input{Tokens: []int32{want.Dist.Candidates[0].ID}}
		}
		require.Positive(t, splits, "%s: no decode step was split", sm.Name)
		r.log(t, sm.Name+" split vs unsplit attention")
	}
}

func TestEmulatedSplitAttentionMatchesUnsplit(t *testing.T) {
	checkSplitAttention(t, func(t testing.TB, m *engine.Model, o engine.Options) engine.Engine { return newEmulated(t, m, o) })
}
