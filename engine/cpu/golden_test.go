package cpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

var goldenModels = []string{"stories260K-hf", "tiny-llama3", "tiny-qwen2", "tiny-smollm2", "tiny-llama-untied"}

// TestGoldenModels runs every golden prompt token by token through the KV cache
// (top-10 at each position), checks the last position in full, then decodes the
// greedy continuation with the cache against the goldens' full recompute.
func TestGoldenModels(t *testing.T) {
	for _, name := range goldenModels {
		t.Run(name, func(t *testing.T) {
			g, m := loadGolden(t, name)
			errs := maxErr{}
			inv, err := engine.RopeInvFreq(&m.Config)
			require.NoError(t, err)
			require.Len(t, inv, len(g.RopeInvFreq))
			for i, want := range g.RopeInvFreq {
				require.InEpsilon(t, float64(want), inv[i], 1e-12, "inv_freq[%d]", i)
			}
			for _, c := range g.Cases {
				t.Run(c.Name, func(t *testing.T) { checkCase(t, m, c, g.GreedyNewTokens, errs) })
			}
			t.Logf("%s max |Δ|: %v", name, errs)
		})
	}
}

func checkCase(t *testing.T, m *engine.Model, c goldenCase, greedy int, errs maxErr) {
	T := len(c.PromptIDs)
	// TopK 16 keeps a 128k vocabulary cheap; the full logits come from the engine.
	e := newEngine(t, m, engine.Options{MaxSeqLen: T + greedy, MetricLayer: -1, TopK: 16})
	var last engine.Output
	for pos, id := range c.PromptIDs {
		out := step(t, e, engine.Input{Slot: 0, Tokens: []int32{id}})
		logits := stepLogits(e, 0)
		errs.see("top10", checkTop10(t, "top10", logits, &out[0].Dist, c.Top10[pos], maxTop10Logit(c.Top10[pos])))
		last = out[0]
	}
	checkLast(t, e, 0, &last, c, errs)
	require.Len(t, last.Dist.Candidates, 16)
	require.Equal(t, e.cfg.VocabSize, last.Dist.VocabSize)

	// Greedy with the cache: the Dist that chose each token is checked too.
	out := []engine.Output{last}
	for s := 0; s < greedy; s++ {
		d := &out[0].Dist
		next := d.Candidates[0].ID // sorted by logit, ties by lower id: argmax
		require.Equal(t, c.GreedyIDs[s], next, "greedy step %d", s)
		errs.see("greedy_top10", checkTop10(t, "greedy_top10", stepLogits(e, 0), d, c.GreedyTop10[s], maxTop10Logit(c.GreedyTop10[s])))
		if s+1 < greedy {
			out = step(t, e, engine.Input{Slot: 0, Tokens: []int32{next}})
		}
	}
}

// checkLast compares an input's last-position output (and the engine's captured
// attention scores of output index outIdx) with the golden case.
func checkLast(t *testing.T, e *Engine, outIdx int, o *engine.Output, c goldenCase, errs maxErr) {
	t.Helper()
	logits := stepLogits(e, outIdx)
	errs.see("last_logits", checkVector(t, "last_logits", logits, c.LastLogits))
	l2 := relL2(logits, c.LastLogits)
	errs.see("last_logits_relL2", l2)
	require.LessOrEqual(t, l2, l2Tol, "relative L2 of last logits")

	for name, p := range map[string][2]float64{
		"log_partition": {o.Dist.LogPartition, float64(c.LogPartition)},
		"entropy":       {o.Dist.Entropy, float64(c.Entropy)},
		"varentropy":    {o.Dist.Varentropy, float64(c.Varentropy)},
	} {
		d := math.Abs(p[0] - p[1])
		errs.see(name, d)
		require.LessOrEqual(t, d, statsTol, "%s: got %.10g want %.10g", name, p[0], p[1])
	}

	heads, T := len(c.AttnScores), len(c.PromptIDs)
	require.Equal(t, e.cfg.Heads, heads)
	scores := e.attnScores[outIdx][:heads*T]
	for h := range heads {
		errs.see("attn_scores", checkVector(t, "attn scores", scores[h*T:(h+1)*T], c.AttnScores[h]))
	}
	require.Len(t, o.Attn.HeadEntropy, heads)
	for h, want := range c.AttnEntropy {
		d := math.Abs(o.Attn.HeadEntropy[h] - float64(want))
		errs.see("attn_entropy", d)
		require.LessOrEqual(t, d, statsTol, "head %d attention entropy", h)
	}
}

// TestGoldenBatch runs the goldens' batch case: two prompts of different lengths
// prefilled together in one step must match the per-case numbers.
func TestGoldenBatch(t *testing.T) {
	for _, name := range goldenModels {
		t.Run(name, func(t *testing.T) {
			g, m := loadGolden(t, name)
			require.Len(t, g.Batch.Cases, 2)
			a, b := g.Cases[g.Batch.Cases[0]], g.Cases[g.Batch.Cases[1]]
			e := newEngine(t, m, engine.Options{Slots: 2, MaxSeqLen: 64, MetricLayer: -1})
			out := step(t, e,
				engine.Input{Slot: 1, Tokens: a.PromptIDs},
				engine.Input{Slot: 0, Tokens: b.PromptIDs})
			errs := maxErr{}
			checkLast(t, e, 0, &out[0], a, errs)
			checkLast(t, e, 1, &out[1], b, errs)
			t.Logf("%s batch max |Δ|: %v", name, errs)
		})
	}
}
