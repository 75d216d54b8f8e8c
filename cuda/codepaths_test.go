package cuda

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// hostKernels is set by the cudasim build: the pipeline tests then run the .cu kernels
// themselves, and the tests below, which exist to reach the kernels' code paths, run.
var hostKernels bool

func needHostKernels(t *testing.T) {
	t.Helper()
	if !hostKernels {
		t.Skip("reaches the kernels' code paths: run with -tags cudasim (make cudasim)")
	}
}

// gqaShapes cover GQA groups 1, 2, 3, 4 and 8 and head dims 12, 64, 128 and 256: query
// heads per block (hb) of 1 to 8, both key-load paths, one to eight dims per lane, and
// at head dim 128 with 8 grouped heads a shared-memory limit of 10 warps, so a 560-key
// row takes two passes per warp (and 16 warps, at head dim 64, at 512 keys).
var gqaShapes = []engine.Config{
	{HiddenSize: 64, Intermediate: 96, Layers: 1, Heads: 2, KVHeads: 2, HeadDim: 64, VocabSize: 3000},
	{HiddenSize: 64, Intermediate: 96, Layers: 1, Heads: 3, KVHeads: 1, HeadDim: 64, VocabSize: 3000},
	{HiddenSize: 64, Intermediate: 96, Layers: 1, Heads: 4, KVHeads: 1, HeadDim: 128, VocabSize: 3000,
		Architecture: "Qwen2ForCausalLM"},
	{HiddenSize: 64, Intermediate: 96, Layers: 1, Heads: 8, KVHeads: 1, HeadDim: 128, VocabSize: 3000},
	// Head dim 12 takes the kernels' 4-byte key loads (not a multiple of 8); head dim
	// 256 all eight dims per lane.
	{HiddenSize: 48, Intermediate: 96, Layers: 1, Heads: 4, KVHeads: 2, HeadDim: 12, VocabSize: 3000},
	{HiddenSize: 64, Intermediate: 96, Layers: 1, Heads: 2, KVHeads: 1, HeadDim: 256, VocabSize: 3000},
}

// The shapes above do reach the multi-pass paths they are there for.
func TestGQAShapesReachTheTiles(t *testing.T) {
	g := attnGeometry(8, 1, 128, 560, 140)
	require.Equal(t, 8, g.hb)
	require.Equal(t, 10, g.warps)
	require.Greater(t, 560, g.warps*32, "two passes per warp")
	g = attnGeometry(3, 1, 64, 565, 140)
	require.Equal(t, 3, g.hb)
	require.Greater(t, 565, g.warps*32)
	for _, c := range gqaShapes {
		g = attnGeometry(c.Heads, c.KVHeads, c.HeadDim, 565, 2)
		require.Equal(t, 5, g.splits, "decoding two 560+-key rows is split: %+v", c)
	}
	require.Greater(t, gqaShapes[0].VocabSize, topkChunk, "two top-K stages")
	require.Greater(t, ceilDiv(565, attnAgreementTile(3, 64)), attnAgreementChunks, "attn_agreement chunks of several tiles")
	require.Less(t, attnAgreementTile(64, 128), 32, "a smaller agreement tile where 32 does not fit")
}

func buildModel(t *testing.T, c engine.Config, seed uint64) *engine.Model {
	return buildModelTB(t, c, seed)
}

// buildModelTB builds a random model of shape c in BF16 with its query and key
// projections scaled by 8. Random N(0, 0.02) weights give near-uniform attention,
// under which a wrong score or a dropped key barely moves the output; scaled, the
// scores are 64 times larger and heads sit at a few bits, so the comparisons see the
// attention kernels' mistakes. Powers of two keep the BF16 values exact.
func buildModelTB(t testing.TB, c engine.Config, seed uint64) *engine.Model {
	t.Helper()
	dir := t.TempDir()
	c.MaxPositions, c.TiedEmbedding = 1024, true
	require.NoError(t, engine.BuildTestModel(dir, engine.TestModelSpec{Config: c, Seed: seed}))
	m, err := engine.Load(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	r := bf16Model(t, m)
	for name, ts := range r.Tensors {
		if !strings.Contains(name, "q_proj") && !strings.Contains(name, "k_proj") {
			continue
		}
		for i := 0; i < ts.Len(); i++ {
			v := engine.BF16ToF32(binary.LittleEndian.Uint16(ts.Data[2*i:]))
			binary.LittleEndian.PutUint16(ts.Data[2*i:], engine.F32ToBF16(8*v))
		}
	}
	return r
}

func randomPrompt(rng *rand.Rand, n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(rng.IntN(vocab))
	}
	return ids
}

// A long prompt prefilled in chunks next to short ones (batching, mixed lengths),
// batched decoding over 560+ keys, a freed and refilled slot, both attention modes and
// both head layouts, against the CPU backend on the same BF16 weights.
func TestHostKernelsGQAAndLongRows(t *testing.T) {
	needHostKernels(t)
	for i, c := range gqaShapes {
		name := fmt.Sprintf("heads%d-kv%d-dim%d", c.Heads, c.KVHeads, c.HeadDim)
		t.Run(name, func(t *testing.T) {
			m := buildModel(t, c, uint64(i+1))
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			mode := attnModes[i%2]
			o := mode
			o.Slots, o.MaxSeqLen, o.TopK = 3, 600, 0
			g, cpu := newEmulated(t, m, o), newCPU(t, bf16Model(t, m), o)
			r := report{}
			both := func(where string, in ...engine.Input) {
				got, want := step(t, g, in...), step(t, cpu, in...)
				for j := range in {
					compareOutput(t, fmt.Sprintf("%s %s input %d", name, where, j), &got[j], &want[j], scaledQKTol, r)
				}
			}
			long := randomPrompt(rng, 560, c.VocabSize)
			for s := 0; s < len(long); s += 140 {
				both(fmt.Sprintf("chunk@%d", s), engine.Input{Slot: 0, Tokens: long[s : s+140]},
					engine.Input{Slot: 1 + s/140%2, Tokens: randomPrompt(rng, 3, c.VocabSize)})
			}
			withGroupedHeads(func() {
				for s := 0; s < 2; s++ {
					both(fmt.Sprintf("grouped decode %d", s), engine.Input{Slot: 0, Tokens: randomPrompt(rng, 1, c.VocabSize)},
						engine.Input{Slot: 2, Tokens: randomPrompt(rng, 1, c.VocabSize)})
				}
			})
			both("decode", engine.Input{Slot: 0, Tokens: randomPrompt(rng, 1, c.VocabSize)},
				engine.Input{Slot: 1, Tokens: randomPrompt(rng, 1, c.VocabSize)})
			g.Free(1)
			cpu.Free(1)
			both("refilled", engine.Input{Slot: 1, Tokens: randomPrompt(rng, 40, c.VocabSize)})
			r.log(t, name)
		})
	}
}

// Every shared model: the golden prompts batched in one step, then again chunked by 4
// with every sequence's chunk in the same steps (mixed lengths), batched greedy
// decoding, and a freed slot refilled, each output against the CPU backend.
func TestHostKernelsBatchedChunkedRefilled(t *testing.T) {
	needHostKernels(t)
	for i, sm := range sharedModels {
		t.Run(sm.Name, func(t *testing.T) {
			m, cases := loadShared(t, sm)
			o := attnModes[i%len(attnModes)]
			o.Slots, o.MaxSeqLen, o.TopK = len(cases), 96, 0
			g, cpu := newEmulated(t, m, o), newCPU(t, bf16Model(t, m), o)
			r := report{}
			both := func(where string, in []engine.Input) []engine.Output {
				got, want := step(t, g, in...), step(t, cpu, in...)
				for j := range in {
					compareOutput(t, fmt.Sprintf("%s %s slot %d", sm.Name, where, in[j].Slot), &got[j], &want[j], sm.tol, r)
				}
				return want
			}
			var in []engine.Input
			for s, c := range cases {
				in = append(in, engine.Input{Slot: s, Tokens: c.PromptIDs})
			}
			both("batched prefill", in)
			for s := range cases {
				g.Free(s)
				cpu.Free(s)
			}
			var last []engine.Output
			for k := 0; ; k += 4 {
				var chunk []engine.Input
				for s, c := range cases {
					if k < len(c.PromptIDs) {
						chunk = append(chunk, engine.Input{Slot: s, Tokens: c.PromptIDs[k:min(k+4, len(c.PromptIDs))]})
					}
				}
				if len(chunk) == 0 {
					break
				}
				out := both(fmt.Sprintf("chunk@%d", k), chunk)
				for j, inp := range chunk {
					if k+4 >= len(cases[inp.Slot].PromptIDs) {
						last = append(last, out[j])
						in[inp.Slot].Tokens = []int32{out[j].Dist.Candidates[0].ID}
					}
				}
			}
			require.Len(t, last, len(cases))
			for s := 0; s < 3; s++ {
				out := both(fmt.Sprintf("decode %d", s), in)
				for j := range in {
					in[j].Tokens = []int32{out[j].Dist.Candidates[0].ID}
				}
			}
			g.Free(0)
			cpu.Free(0)
			both("refilled", []engine.Input{{Slot: 0, Tokens: cases[len(cases)-1].PromptIDs}})
			r.log(t, sm.Name)
		})
	}
}
