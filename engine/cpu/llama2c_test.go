package cpu

import (
	"cmp"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// llama2cRun is one run of stories260K_llama2c.json (run.c semantics, 6 decimals).
type llama2cRun struct {
	Prompt       string  `json:"prompt"`
	PromptTokens []int32 `json:"prompt_tokens"`
	Steps        int     `json:"steps"`
	IDs          []int32 `json:"ids"` // prompt included
	Text         string  `json:"text"`
	LogitsPos0   []gf    `json:"logits_pos0"`
	Top10First8  []struct {
		Pos        int   `json:"pos"`
		InputToken int32 `json:"input_token"`
		Top10      pairs `json:"top10"`
	} `json:"top10_logits_first8"`
}

// TestLlama2cBin runs the original stories260K.bin (through the llama2.c converter)
// and its Hugging Face conversion against run.c's goldens: logits after BOS, top-10
// over the first 8 positions, and the greedy stories, which stop when BOS is
// sampled. From BOS alone that is "Once upon a time, there was a little girl named
// Lily…" (256 tokens).
func TestLlama2cBin(t *testing.T) {
	var g struct {
		Runs []llama2cRun `json:"runs"`
	}
	sharedtest.ReadJSON(t, "golden/models/stories260K_llama2c.json", &g)
	require.NotEmpty(t, g.Runs)
	for _, ckpt := range []string{"models/stories260K/stories260K.bin", "models/stories260K-hf"} {
		m, err := engine.Load(sharedtest.Path(t, ckpt))
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		for _, run := range g.Runs {
			t.Run(ckpt+"/"+cmp.Or(run.Prompt, "BOS"), func(t *testing.T) { checkLlama2cRun(t, m, run) })
		}
	}
}

func checkLlama2cRun(t *testing.T, m *engine.Model, run llama2cRun) {
	const bos = 1
	require.Equal(t, run.PromptTokens, run.IDs[:len(run.PromptTokens)])
	e := newEngine(t, m, engine.Options{MetricLayer: -1})
	ids := []int32{run.IDs[0]}
	out := step(t, e, engine.Input{Slot: 0, Tokens: ids})
	logits := logitsOf(t, &out[0].Dist)
	// The file's 6-decimal rounding adds 5e-7 to the usual tolerance.
	tol := relTol*math.Max(1, maxAbs(run.LogitsPos0)) + 5e-7
	worst := 0.0
	for i, want := range run.LogitsPos0 {
		require.InDelta(t, float64(want), float64(logits[i]), tol, "logits_pos0[%d]", i)
		worst = math.Max(worst, math.Abs(float64(want)-float64(logits[i])))
	}
	t.Logf("logits_pos0 max |Δ| %.3g", worst)
	for pos := 1; len(ids) < run.Steps+1; pos++ {
		d := &out[0].Dist
		// top10_logits_first8[p] is the distribution after the token at p.
		if p := pos - 1; p < len(run.Top10First8) {
			require.Equal(t, run.IDs[p], run.Top10First8[p].InputToken)
			checkTop10(t, "top10_first8", logitsOf(t, d), d, run.Top10First8[p].Top10, maxTop10Logit(run.Top10First8[p].Top10))
		}
		next := d.Candidates[0].ID // greedy
		if pos < len(run.PromptTokens) {
			next = run.PromptTokens[pos] // still feeding the prompt
		} else if next == bos {
			break
		}
		ids = append(ids, next)
		out = step(t, e, engine.Input{Slot: 0, Tokens: []int32{next}})
	}
	require.Equal(t, run.IDs, ids)
}
