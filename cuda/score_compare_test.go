package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Token scoring (pipeline_score.go) against the CPU backend's own scores, shared by the
// emulator tests here and the GPU test.

// scoreInputs puts each golden prompt in its own slot with lm-eval-like targets:
// every position's next prompt token (loglikelihood_rolling) and, at the last
// position, two more tokens sharing it (a multiple-choice question's choices).
func scoreInputs(cases []goldenPrompt, vocab int) []engine.Input {
	var in []engine.Input
	for i, tc := range cases {
		inp := engine.Input{Slot: i, Tokens: tc.PromptIDs}
		for j := 0; j+1 < len(tc.PromptIDs); j++ {
			inp.Score = append(inp.Score, engine.ScoreTarget{At: j, Token: tc.PromptIDs[j+1]})
		}
		last := len(tc.PromptIDs) - 1
		inp.Score = append(inp.Score, engine.ScoreTarget{At: last, Token: 0}, engine.ScoreTarget{At: last, Token: int32(vocab - 1)})
		in = append(in, inp)
	}
	return in
}

// compareScores checks got's scores against the CPU backend's (want, from cpu on the
// same BF16 weights): log-probabilities within the statistics tolerance, and the same
// greedy flag except where the CPU's own top-1/top-2 margin at that position is inside
// the BF16 noise (measured on a fresh CPU step over the prefix). r collects the largest
// deviation.
func compareScores(t *testing.T, where string, in []engine.Input, got, want []engine.Output, cpu engine.Engine, tol tolerances, r report) {
	t.Helper()
	for i, inp := range in {
		require.Len(t, got[i].Scores, len(inp.Score), "%s input %d", where, i)
		require.Len(t, want[i].Scores, len(inp.Score), "%s input %d (cpu)", where, i)
		for k, s := range inp.Score {
			g, w := got[i].Scores[k], want[i].Scores[k]
			at := fmt.Sprintf("%s input %d target %d (position %d, token %d)", where, i, k, s.At, s.Token)
			d := math.Abs(g.LogProb - w.LogProb)
			r.see("logprob", d)
			r.see("scaled_logprob", d/math.Max(1, math.Abs(w.LogProb)))
			assert.LessOrEqual(t, d, tol.Stats*math.Max(1, math.Abs(w.LogProb)), "%s: log-probability %g, cpu %g", at, g.LogProb, w.LogProb)
			if g.Greedy != w.Greedy {
				cpu.Free(0)
				d := step(t, cpu, engine.Input{Slot: 0, Tokens: inp.Tokens[:s.At+1]})[0].Dist
				require.Less(t, topMargin(&d), greedyMarginTol*math.Max(1, math.Abs(float64(d.Candidates[0].Logit))),
					"%s: greedy %v, cpu %v outside the noise", at, g.Greedy, w.Greedy)
				r.see("greedy_flips_in_noise", r["greedy_flips_in_noise"]+1)
			}
		}
	}
}

// checkScoring runs scoreInputs on eng and on the CPU backend, batched, and compares;
// then checks that eng's scores do not depend on batching: each prompt alone, and the
// batch split into sub-batches of 5 rows (newEng(5)), give the same bits — or, with
// exact false (a GPU, where cuBLAS may pick another kernel for another row count),
// the same within the CPU comparison's tolerance, the largest difference logged.
func checkScoring(t *testing.T, sm sharedModel, m *engine.Model, cases []goldenPrompt, exact bool, newEng func(tokenCap int) engine.Engine) {
	t.Helper()
	o := engine.Options{Slots: len(cases), MaxSeqLen: 64, MetricLayer: -1}
	in := scoreInputs(cases, m.Config.VocabSize)
	cpuBatch, cpuOne := newCPU(t, bf16Model(t, m), o), newCPU(t, bf16Model(t, m), engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1})
	want := step(t, cpuBatch, in...)
	got := step(t, newEng(0), in...)
	r := report{}
	compareScores(t, sm.Name+" batched", in, got, want, cpuOne, sm.tol, r)
	r.log(t, sm.Name+" scores against the cpu backend")
	// At an input's last position the scored row is the output's own row: the same
	// logits as its whole-vocabulary Dist, so the score is that Dist's log-softmax
	// (to the last bits of the two float64 log-partitions) and its argmax.
	for i, inp := range in {
		d := got[i].Dist
		require.Len(t, d.Candidates, d.VocabSize, "needs the whole vocabulary (TopK 0)")
		logits := fullLogits(t, &d)
		for k, s := range inp.Score {
			if s.At != len(inp.Tokens)-1 {
				continue
			}
			sc := got[i].Scores[k]
			assert.InDelta(t, logits[s.Token]-d.LogPartition, sc.LogProb, 1e-9, "%s case %d target %d", sm.Name, i, k)
			assert.Equal(t, d.Candidates[0].ID == s.Token, sc.Greedy, "%s case %d target %d", sm.Name, i, k)
		}
	}
	split := step(t, newEng(5), in...)
	same := report{}
	for i, inp := range in {
		alone := inp
		alone.Slot = 0
		one := step(t, newEng(0), alone)
		if exact {
			require.Equal(t, got[i].Scores, one[0].Scores, "%s case %d: batched vs alone", sm.Name, i)
			require.Equal(t, got[i].Scores, split[i].Scores, "%s case %d: split into 5-row sub-batches", sm.Name, i)
			require.Equal(t, got[i].Dist, split[i].Dist, "%s case %d: the output's distribution with scoring", sm.Name, i)
			continue
		}
		for k := range inp.Score {
			for _, o := range []struct {
				name string
				sc   engine.TokenScore
			}{{"alone", one[0].Scores[k]}, {"split", split[i].Scores[k]}} {
				w := got[i].Scores[k].LogProb
				d := math.Abs(o.sc.LogProb - w)
				same.see(o.name, d)
				assert.LessOrEqual(t, d, sm.tol.Stats*math.Max(1, math.Abs(w)), "%s case %d target %d: %s vs batched", sm.Name, i, k, o.name)
			}
		}
	}
	if !exact {
		same.log(t, sm.Name+" scores alone and split vs batched")
	}
}

func TestEmulatedScoresMatchCPU(t *testing.T) {
	for _, sm := range []sharedModel{sharedModels[0], sharedModels[2], sharedModels[4]} {
		m, cases := loadShared(t, sm)
		checkScoring(t, sm, m, cases, true, func(tokenCap int) engine.Engine {
			e := newEmulated(t, m, engine.Options{Slots: len(cases), MaxSeqLen: 64, MetricLayer: -1})
			if tokenCap > 0 {
				e.plan.TokenCap = tokenCap
			}
			return e
		})
	}
}

// More scored rows than slots go through the LM head in several passes; a target out
// of range is refused with the CPU backend's message.
func TestEmulatedScoringPassesAndErrors(t *testing.T) {
	m, cases := loadShared(t, sharedModels[0])
	e := newEmulated(t, m, engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1})
	c := newCPU(t, bf16Model(t, m), engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1})
	longest := cases[0]
	for _, tc := range cases {
		if len(tc.PromptIDs) > len(longest.PromptIDs) {
			longest = tc
		}
	}
	in := scoreInputs([]goldenPrompt{longest}, m.Config.VocabSize)
	require.Greater(t, len(in[0].Tokens), 2, "several scored rows for one slot")
	got, want := step(t, e, in...), step(t, c, in...)
	r := report{}
	compareScores(t, "one slot", in, got, want, c, sharedModels[0].tol, r)

	var out []engine.Output
	e.Free(0)
	err := e.Step(bg, []engine.Input{{Slot: 0, Tokens: []int32{1, 2}, Score: []engine.ScoreTarget{{At: 2, Token: 1}}}}, &out)
	require.ErrorContains(t, err, "input 0 (slot 0): score target 0 at position 2 outside the input's 2 tokens")
	err = e.Step(bg, []engine.Input{{Slot: 0, Tokens: []int32{1, 2}, Score: []engine.ScoreTarget{{At: 1, Token: -1}}}}, &out)
	require.ErrorContains(t, err, "score target 0: token -1 outside the vocabulary")
	require.Equal(t, 0, e.Len(0))
}
