package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// refLogSoftmax is ln softmax(logits)[tok] and whether tok is the argmax (lowest
// id among ties), in float64.
func refLogSoftmax(logits []float64, tok int32) (float64, bool, float64) {
	maxv, arg := math.Inf(-1), 0
	for i, v := range logits {
		if v > maxv {
			maxv, arg = v, i
		}
	}
	var z float64
	for _, v := range logits {
		z += math.Exp(v - maxv)
	}
	// margin: how far the runner-up is below the best, to skip ties closer than float32 noise.
	second := math.Inf(-1)
	for i, v := range logits {
		if i != arg && v > second {
			second = v
		}
	}
	return logits[tok] - maxv - math.Log(z), int(tok) == arg, maxv - second
}

// TestScoreGoldens scores every shared model's golden prompts: each position's
// next prompt token, and after the whole prompt the golden greedy token and a
// token that is not greedy. The last position is checked against the goldens
// themselves (last_logits − logits_log_partition); every position against the
// float64 reference forward pass, itself checked against last_logits first.
// The tolerance is the forward goldens' logit tolerance plus their log Z one.
func TestScoreGoldens(t *testing.T) {
	for _, name := range goldenModels {
		t.Run(name, func(t *testing.T) {
			g, m := loadGolden(t, name)
			c := &m.Config
			e := newEngine(t, m, engine.Options{Slots: 2, MaxSeqLen: 64, MetricLayer: -1, TopK: 16, Threads: 2})
			worst := 0.0
			for _, gc := range g.Cases {
				n := len(gc.PromptIDs)
				greedy := gc.GreedyIDs[0]
				other := int32((int(greedy) + 1) % c.VocabSize)
				var score []engine.ScoreTarget
				for i := 0; i+1 < n; i++ {
					score = append(score, engine.ScoreTarget{At: i, Token: gc.PromptIDs[i+1]})
				}
				score = append(score, engine.ScoreTarget{At: n - 1, Token: greedy}, engine.ScoreTarget{At: n - 1, Token: other})
				e.Free(0)
				out := step(t, e, engine.Input{Slot: 0, Tokens: gc.PromptIDs, Score: score})
				got := out[0].Scores
				require.Len(t, got, len(score))

				tol := relTol*math.Max(1, maxAbs(gc.LastLogits)) + statsTol
				for k, tok := range []int32{greedy, other} {
					s := got[len(got)-2+k]
					want := float64(gc.LastLogits[tok]) - float64(gc.LogPartition)
					require.InDelta(t, want, s.LogProb, tol, "%s last position, token %d", gc.Name, tok)
					require.Equal(t, k == 0, s.Greedy, "%s last position, token %d is_greedy", gc.Name, tok)
					worst = math.Max(worst, math.Abs(want-s.LogProb))
				}

				if name == "tiny-llama3" && n > 7 {
					continue // 128k vocabulary: the float64 reference is slow; len1 and len7 suffice
				}
				ref := refForward(t, m, gc.PromptIDs, g.RopeInvFreq, c.Layers-1)
				refTol := 1e-6 * math.Max(1, maxAbs(gc.LastLogits))
				for i, w := range gc.LastLogits {
					if d := math.Abs(float64(w) - ref.logits[n-1][i]); d > refTol {
						t.Fatalf("%s reference logit %d: %v, golden %v", gc.Name, i, ref.logits[n-1][i], float64(w))
					}
				}
				for k, s := range score {
					want, greedy, margin := refLogSoftmax(ref.logits[s.At], s.Token)
					require.InDelta(t, want, got[k].LogProb, tol, "%s position %d token %d", gc.Name, s.At, s.Token)
					if margin > 1e-4 {
						require.Equal(t, greedy, got[k].Greedy, "%s position %d token %d is_greedy", gc.Name, s.At, s.Token)
					}
					worst = math.Max(worst, math.Abs(want-got[k].LogProb))
				}
			}
			t.Logf("%s max |Δ log p|: %.2g", name, worst)
		})
	}
}

// scoreBits is a score as bits, so equality means bit-identity.
type scoreBits struct {
	LogProb uint64
	Greedy  bool
}

func scoreBitsOf(s []engine.TokenScore) []scoreBits {
	out := make([]scoreBits, len(s))
	for i, v := range s {
		out[i] = scoreBits{math.Float64bits(v.LogProb), v.Greedy}
	}
	return out
}

// scoreAll feeds prompt to slot in pieces of the given sizes and scores every
// position's next token (the last one against target), returning the scores in
// position order.
func scoreAll(t *testing.T, e *Engine, slot int, prompt []int32, target int32, sizes ...int) []scoreBits {
	var got []scoreBits
	fed := e.Len(slot)
	for _, p := range chunks(prompt[fed:], sizes...) {
		if len(p) == 0 {
			continue
		}
		var score []engine.ScoreTarget
		for j := range p {
			next := target
			if fed+j+1 < len(prompt) {
				next = prompt[fed+j+1]
			}
			score = append(score, engine.ScoreTarget{At: j, Token: next})
		}
		out := step(t, e, engine.Input{Slot: slot, Tokens: p, Score: score})
		got = append(got, scoreBitsOf(out[0].Scores)...)
		fed += len(p)
	}
	return got
}

// TestScoreInvariance: a sequence's scores are bit-identical alone, chunked,
// batched beside other scoring and decoding sequences, and after taking its
// prefix from the prefix cache, in both matmul precisions.
func TestScoreInvariance(t *testing.T) {
	for name, spec := range invarianceSpecs {
		for _, prec := range precisions {
			if prec == engine.MatmulBF16 && name != "llama-bf16" {
				continue // the BF16 emulation is slow without AVX512_BF16; one model covers its path
			}
			t.Run(name+"/"+string(prec), func(t *testing.T) {
				m := buildModel(t, spec)
				r := rand.New(rand.NewPCG(3, 5))
				vocab := m.Config.VocabSize
				prompt := randomIDs(r, 70, vocab)
				target := int32(r.IntN(vocab))
				want := scoreAll(t, newEngine(t, m, engine.Options{MaxSeqLen: 96, MetricLayer: -1, Threads: 1, MatmulPrecision: prec}), 0, prompt, target)
				require.Len(t, want, len(prompt))
				opts := engine.Options{Slots: 4, MaxSeqLen: 96, MetricLayer: -1, Threads: 2, MatmulPrecision: prec}

				for _, sizes := range [][]int{{1, 40}, {33, 33}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}} {
					e := newEngine(t, m, opts)
					require.Equal(t, want, scoreAll(t, e, 2, prompt, target, sizes...), "chunks %v", sizes)
				}

				t.Run("batched", func(t *testing.T) {
					e := newEngine(t, m, opts)
					other := randomIDs(r, 50, vocab)
					step(t, e, engine.Input{Slot: 0, Tokens: other[:20]})
					// One step: the scored prompt beside a decoding slot and a scoring slot
					// with targets at several positions, one of them twice.
					out := step(t, e,
						engine.Input{Slot: 0, Tokens: other[20:21]},
						engine.Input{Slot: 1, Tokens: prompt, Score: allTargets(prompt, target)},
						engine.Input{Slot: 3, Tokens: other[:9], Score: []engine.ScoreTarget{{At: 8, Token: 1}, {At: 2, Token: 5}, {At: 8, Token: 2}}})
					require.Equal(t, want, scoreBitsOf(out[1].Scores))
					require.Len(t, out[2].Scores, 3)
					require.Empty(t, out[0].Scores)
				})

				t.Run("prefix cache", func(t *testing.T) {
					e := newEngine(t, m, opts)
					_, err := e.AttachPrefix(0, prompt)
					require.NoError(t, err)
					step(t, e, engine.Input{Slot: 0, Tokens: prompt})
					n, err := e.AttachPrefix(1, prompt)
					require.NoError(t, err)
					require.Equal(t, len(prompt)-1, n, "every prompt token but the last reused")
					require.Equal(t, want[n:], scoreAll(t, e, 1, prompt, target))
				})
			})
		}
	}
}

func allTargets(prompt []int32, last int32) []engine.ScoreTarget {
	out := make([]engine.ScoreTarget, len(prompt))
	for i := range prompt {
		next := last
		if i+1 < len(prompt) {
			next = prompt[i+1]
		}
		out[i] = engine.ScoreTarget{At: i, Token: next}
	}
	return out
}

// TestScoreRefusals: targets outside the input or the vocabulary are refused
// before anything runs, and the slot is left as it was.
func TestScoreRefusals(t *testing.T) {
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	e := newEngine(t, m, engine.Options{Slots: 1, MaxSeqLen: 32, MetricLayer: -1})
	var out []engine.Output
	for name, s := range map[string]engine.ScoreTarget{
		"position past the input": {At: 3, Token: 1},
		"negative position":       {At: -1, Token: 1},
		"token outside vocab":     {At: 0, Token: int32(m.Config.VocabSize)},
	} {
		err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: []int32{1, 2, 3}, Score: []engine.ScoreTarget{s}}}, &out)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "score target", name)
		require.Equal(t, 0, e.Len(0), name)
	}
}
