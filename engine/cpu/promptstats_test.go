package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// TestPromptStatsMatchFloat64Reference checks the prompt-averaged metrics (the
// SmolLM port's first-token metrics) against calculate_metrics transliterated into
// float64 over an independent float64 forward pass, which is itself checked against
// the model goldens first.
func TestPromptStatsMatchFloat64Reference(t *testing.T) {
	for _, model := range []string{"tiny-smollm2", "tiny-qwen2", "tiny-llama3"} {
		t.Run(model, func(t *testing.T) {
			g, m := loadGolden(t, model)
			c := &m.Config
			e := newEngine(t, m, engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1, Threads: 2})
			for _, gc := range g.Cases {
				if model == "tiny-llama3" && len(gc.PromptIDs) > 7 {
					continue // 128k vocabulary: the float64 reference is slow; len1 and len7 suffice
				}
				ref := refForward(t, m, gc.PromptIDs, g.RopeInvFreq, c.Layers-1)
				// The reference reproduces the goldens: last logits and last-row scores.
				n := len(gc.PromptIDs)
				last := ref.logits[n-1]
				tol := 1e-6 * math.Max(1, maxAbs(gc.LastLogits))
				for i, w := range gc.LastLogits {
					if d := math.Abs(float64(w) - last[i]); d > tol {
						t.Fatalf("%s reference logit %d: %v, golden %v", gc.Name, i, last[i], float64(w))
					}
				}
				s := ref.refScores(n-1, c.Heads, c.KVHeads, c.HeadDim)
				for h := range gc.AttnScores {
					for j, w := range gc.AttnScores[h] {
						require.InDelta(t, float64(w), s[h][j], 1e-6, "%s reference score head %d key %d", gc.Name, h, j)
					}
				}
				want := refPromptStats(&ref, c.Heads, c.KVHeads, c.HeadDim)

				e.Free(0)
				out := step(t, e, engine.Input{Slot: 0, Tokens: gc.PromptIDs, PromptStats: true})
				got := out[0].Prompt
				require.Equal(t, n, got.Positions, gc.Name)
				for _, f := range []struct {
					name      string
					got, want float64
				}{
					{"logits entropy", got.LogitsEntropy, want.LogitsEntropy},
					{"logits varentropy", got.LogitsVarentropy, want.LogitsVarentropy},
					{"attention entropy", got.AttnEntropy, want.AttnEntropy},
					{"attention varentropy", got.AttnVarentropy, want.AttnVarentropy},
					{"attention varentropy ddof 1", got.AttnVarentropyDDOF1, want.AttnVarentropyDDOF1},
					{"agreement", got.Agreement, want.Agreement},
					{"interaction strength", got.InteractionStrength, want.InteractionStrength},
				} {
					require.InDelta(t, f.want, f.got, statsTol*math.Max(1, math.Abs(f.want)), "%s %s", gc.Name, f.name)
					if f.want != 0 {
						require.InEpsilon(t, f.want, f.got, 1e-4, "%s %s", gc.Name, f.name)
					}
				}
				if n == 1 {
					// One position: the means are that position's statistics, which
					// the ordinary outputs carry too.
					require.InDelta(t, out[0].Dist.Entropy, got.LogitsEntropy, 1e-12)
					require.InDelta(t, out[0].Attn.Entropy, got.AttnEntropy, 1e-12)
				}
			}
		})
	}
}

var promptSpec = engine.TestModelSpec{Seed: 7, Config: engine.Config{HiddenSize: 64, Intermediate: 128, Layers: 2, Heads: 4, KVHeads: 2,
	VocabSize: 512, MaxPositions: 128, RopeTheta: 1e4, RMSNormEps: 1e-5, TiedEmbedding: true, DType: engine.BF16}}

func promptBits(p engine.PromptStats) [8]uint64 {
	return [8]uint64{uint64(p.Positions), math.Float64bits(p.LogitsEntropy), math.Float64bits(p.LogitsVarentropy),
		math.Float64bits(p.AttnEntropy), math.Float64bits(p.AttnVarentropy), math.Float64bits(p.AttnVarentropyDDOF1),
		math.Float64bits(p.Agreement), math.Float64bits(p.InteractionStrength)}
}

// TestPromptStatsChunkingInvariance feeds one prompt whole, in uneven chunks, token
// by token and batched beside other sequences (flagged and not), on 1 and 3
// threads: the averaged metrics are bit-identical, and asking for them changes no
// bit of the ordinary outputs.
func TestPromptStatsChunkingInvariance(t *testing.T) {
	m := buildModel(t, promptSpec)
	r := rand.New(rand.NewPCG(1, 2))
	prompt := randomIDs(r, 41, promptSpec.Config.VocabSize)
	other := randomIDs(r, 23, promptSpec.Config.VocabSize)
	opts := engine.Options{Slots: 3, MaxSeqLen: 96, MetricLayer: -1, Threads: 1}

	whole := newEngine(t, m, opts)
	ref := step(t, whole, engine.Input{Slot: 0, Tokens: prompt, PromptStats: true})[0]
	require.Equal(t, len(prompt), ref.Prompt.Positions)

	plain := newEngine(t, m, opts)
	unflagged := step(t, plain, engine.Input{Slot: 0, Tokens: prompt})[0]
	require.Equal(t, snap(t, &unflagged), snap(t, &ref), "the flag must not change the ordinary outputs")
	require.Zero(t, unflagged.Prompt.Positions, "an input that does not ask gets no prompt metrics")

	for _, tc := range []struct {
		name    string
		sizes   []int
		threads int
	}{
		{"uneven", []int{1, 5, 17}, 1},
		{"halves", []int{20}, 3},
		{"token by token", []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts
			o.Threads = tc.threads
			e := newEngine(t, m, o)
			var last engine.Output
			otherFed := 0
			for i, ch := range chunks(prompt, tc.sizes...) {
				in := []engine.Input{{Slot: 1, Tokens: ch, PromptStats: true}}
				// Neighbours: a flagged prompt in slot 0 and an unflagged one in slot 2.
				if otherFed < len(other) {
					k := min(len(other)-otherFed, 3)
					in = append(in, engine.Input{Slot: 0, Tokens: other[otherFed : otherFed+k], PromptStats: true},
						engine.Input{Slot: 2, Tokens: other[otherFed : otherFed+k]})
					otherFed += k
				}
				out := step(t, e, in...)
				if i < len(tc.sizes) {
					require.Equal(t, e.Len(1), out[0].Prompt.Positions, "a flagged chunk reports the positions so far")
				}
				last = out[0]
			}
			require.Equal(t, promptBits(ref.Prompt), promptBits(last.Prompt))
			require.Equal(t, snap(t, &ref), snap(t, &last))
		})
	}
}

// TestPromptStatsRefusesPartialPrompts: a slot that holds tokens fed without the
// flag (as a prefix taken from a cache would) cannot report prompt-wide means; a
// freed slot starts again, and decoding after the prompt drops the state.
func TestPromptStatsRefusesPartialPrompts(t *testing.T) {
	m := buildModel(t, promptSpec)
	r := rand.New(rand.NewPCG(3, 4))
	prompt := randomIDs(r, 12, promptSpec.Config.VocabSize)
	e := newEngine(t, m, engine.Options{Slots: 1, MaxSeqLen: 32, MetricLayer: -1, Threads: 1})

	step(t, e, engine.Input{Slot: 0, Tokens: prompt[:4]})
	var out []engine.Output
	err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: prompt[4:], PromptStats: true}}, &out)
	require.ErrorContains(t, err, "the slot holds 4 tokens not fed with PromptStats")
	require.Equal(t, 4, e.Len(0), "a refused step changes nothing")

	e.Free(0)
	full := step(t, e, engine.Input{Slot: 0, Tokens: prompt, PromptStats: true})[0]
	require.Equal(t, len(prompt), full.Prompt.Positions)
	dec := step(t, e, engine.Input{Slot: 0, Tokens: []int32{1}})[0]
	require.Zero(t, dec.Prompt.Positions, "outputs are reused: an unflagged input's Prompt is cleared")
	err = e.Step(ctx, []engine.Input{{Slot: 0, Tokens: []int32{2}, PromptStats: true}}, &out)
	require.ErrorContains(t, err, "not fed with PromptStats", "decoding dropped the accumulation")

	// A sequence that ended right after its prompt must not leave its sums to a
	// later sequence of the same length in the freed slot.
	e.Free(0)
	step(t, e, engine.Input{Slot: 0, Tokens: prompt, PromptStats: true})
	e.Free(0)
	step(t, e, engine.Input{Slot: 0, Tokens: prompt})
	err = e.Step(ctx, []engine.Input{{Slot: 0, Tokens: []int32{2}, PromptStats: true}}, &out)
	require.ErrorContains(t, err, "not fed with PromptStats")
}

// BenchmarkPromptStats measures a 256-token prefill in chunks of 64 on the
// SmolLM2-135M-shaped model, plain and with PromptStats (an LM head over every
// prompt row and the prompt's attention recomputed at every chunk): the ratio of
// the two is the flag's cost.
func BenchmarkPromptStats(b *testing.B) {
	m := benchModel(b)
	prompt := randomIDs(rand.New(rand.NewPCG(1, 2)), 256, m.Config.VocabSize)
	for _, flagged := range []bool{false, true} {
		b.Run(fmt.Sprintf("prompt_stats=%v", flagged), func(b *testing.B) {
			e := newEngine(b, m, engine.Options{Slots: 1, MaxSeqLen: 256, TopK: 64, MetricLayer: -1})
			var out []engine.Output
			cpu0 := processCPUTime()
			for range b.N {
				e.Free(0)
				for _, ch := range chunks(prompt, 64, 64, 64) {
					if err := e.Step(ctx, []engine.Input{{Slot: 0, Tokens: ch, PromptStats: flagged}}, &out); err != nil {
						b.Fatal(err)
					}
				}
			}
			// CPU time, not wall time: the latter mostly measures other load.
			b.ReportMetric(float64((processCPUTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/prompt")
		})
	}
}
