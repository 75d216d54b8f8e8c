//go:build cuda

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"gorgonia.org/cu"

	"github.com/entropix-eval/entropix-eval/engine"
)

// The JIT-compiled kernels can run at the largest block the pipeline launches each
// with (a kernel short of registers for it fails at launch), and the run's record
// gets what the driver made of them: registers and local memory (spills) per kernel,
// with the device, driver and cuBLAS they ran on.
func TestGPUKernelResources(t *testing.T) {
	needGPU(t)
	m, _ := loadShared(t, sharedModels[0])
	e := newGPU(t, m, engine.Options{Slots: 1, MaxSeqLen: 16, MetricLayer: -1})
	major, minor, err := e.dev.dev.ComputeCapability()
	require.NoError(t, err)
	t.Logf("device %d: %s, compute capability %d.%d; driver API %d; cuBLAS %s, version %d",
		e.dev.ordinal, e.dev.name, major, minor, cu.Version(), e.blas.name, e.blas.Version())
	require.Len(t, e.dev.fns, len(kernelMaxBlock))
	for name, fn := range e.dev.fns {
		maxThreads, err := fn.Attribute(cu.FnMaxThreadsPerBlock)
		require.NoError(t, err, name)
		regs, err := fn.Attribute(cu.NumRegs)
		require.NoError(t, err, name)
		local, err := fn.Attribute(cu.LocalSizeBytes)
		require.NoError(t, err, name)
		t.Logf("kernel %-16s %3d registers, %4d bytes local memory a thread, at most %4d threads a block (launched with up to %d)",
			name, regs, local, maxThreads, kernelMaxBlock[name])
		require.GreaterOrEqual(t, maxThreads, kernelMaxBlock[name], "%s: the pipeline launches it with %d threads", name, kernelMaxBlock[name])
	}
}

// Every shared model and golden prompt: the prefill output and 24 greedy steps match
// the CPU backend on the same BF16 weights (logits, top-1, Dist and AttnStats), the
// prefill logits also match the CPU on the original weights, and the greedy
// continuations are equal except where the CPU's own margin is inside the BF16 noise.
func TestGPUMatchesCPU(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		for _, mode := range attnModes {
			o := mode
			o.Slots, o.MaxSeqLen, o.TopK = 1, 128, 0
			g, c, orig := newGPU(t, m, o), newCPU(t, bf16Model(t, m), o), newCPU(t, m, o)
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
				for s := 0; s < 24; s++ {
					gTok, cTok := gOut[0].Dist.Candidates[0].ID, cOut[0].Dist.Candidates[0].ID
					if gTok != cTok {
						margin := topMargin(&cOut[0].Dist)
						require.Less(t, margin, greedyMarginTol*math.Max(1, math.Abs(float64(cOut[0].Dist.Candidates[0].Logit))),
							"%s: greedy step %d: gpu %d, cpu %d", where, s, gTok, cTok)
						t.Logf("%s: greedy step %d diverges inside the bf16 noise (cpu margin %g); stopping this case", where, s, margin)
						break
					}
					gOut = step(t, g, engine.Input{Slot: 0, Tokens: []int32{gTok}})
					cOut = step(t, c, engine.Input{Slot: 0, Tokens: []int32{cTok}})
					compareOutput(t, fmt.Sprintf("%s/greedy%d", where, s), &gOut[0], &cOut[0], sm.tol, r)
				}
				require.Equal(t, c.Len(0), g.Len(0))
			}
			r.log(t, fmt.Sprintf("%s/%s/layer%d", sm.Name, o.AttnMode, o.MetricLayer))
		}
	}
}

// The device top-K (TopK 27, and 1024 through several reduction stages) returns
// exactly the head of the whole-vocabulary ranking of the same logits.
func TestGPUTopKKernelMatchesHostRanking(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels[:3] {
		m, cases := loadShared(t, sm)
		for _, k := range []int{1, 27, 1024} {
			if k >= m.Config.VocabSize {
				continue
			}
			full := newGPU(t, m, engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1})
			top := newGPU(t, m, engine.Options{Slots: 1, MaxSeqLen: 64, TopK: k, MetricLayer: -1})
			require.Equal(t, k, top.gpuK)
			in := engine.Input{Slot: 0, Tokens: cases[len(cases)-1].PromptIDs}
			f, g := step(t, full, in), step(t, top, in)
			require.Equal(t, f[0].Dist.Candidates[:k], g[0].Dist.Candidates, "%s k=%d", sm.Name, k)
			require.Equal(t, f[0].Dist.LogPartition, g[0].Dist.LogPartition)
			require.InDelta(t, massOf(&f[0].Dist, k), g[0].Dist.TailMass, 1e-9)
		}
	}
}

func massOf(d *engine.Dist, from int) float64 {
	var s float64
	for _, c := range d.Candidates[from:] {
		s += math.Exp(float64(c.Logit) - d.LogPartition)
	}
	return s
}

// Batching (the three prompts in one step, at different lengths), chunked prefill
// and sub-batch splitting give each sequence the numbers it gets alone. The CPU is
// bit-exact here; on the GPU the difference is reported and must stay tiny.
func TestGPUBatchingChunkingAndSplitting(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels[:5] {
		m, cases := loadShared(t, sm)
		o := engine.Options{Slots: len(cases), MaxSeqLen: 128, MetricLayer: -1}
		alone := make([]engine.Output, len(cases))
		solo := newGPU(t, m, o)
		for i, tc := range cases {
			solo.Free(0)
			alone[i] = step(t, solo, engine.Input{Slot: 0, Tokens: tc.PromptIDs})[0]
		}
		check := func(how string, got []engine.Output) {
			r := report{}
			for i := range cases {
				e := relL2(fullLogits(t, &got[i].Dist), fullLogits(t, &alone[i].Dist))
				r.see("logits_rel_l2", e)
				require.LessOrEqual(t, e, batchRelL2, "%s %s case %d", sm.Name, how, i)
				r.see("entropy", math.Abs(got[i].Dist.Entropy-alone[i].Dist.Entropy))
				r.see("attn_entropy", math.Abs(got[i].Attn.Entropy-alone[i].Attn.Entropy))
				require.InDelta(t, alone[i].Attn.Entropy, got[i].Attn.Entropy, batchStatsTol)
			}
			r.log(t, sm.Name+" "+how+" vs alone")
		}
		var in []engine.Input
		for i, tc := range cases {
			in = append(in, engine.Input{Slot: i, Tokens: tc.PromptIDs})
		}
		batched := newGPU(t, m, o)
		check("batched", step(t, batched, in...))

		withGroupedHeads(func() { check("grouped heads", step(t, newGPU(t, m, o), in...)) })

		split := newGPU(t, m, o)
		split.plan.TokenCap = 5 // buffers stay bigger; forces many sub-batches
		check("split into 5-row sub-batches", step(t, split, in...))

		chunked := newGPU(t, m, o)
		var last []engine.Output
		for i, tc := range cases {
			for s := 0; s < len(tc.PromptIDs); s += 4 {
				out := step(t, chunked, engine.Input{Slot: i, Tokens: tc.PromptIDs[s:min(s+4, len(tc.PromptIDs))]})
				if s+4 >= len(tc.PromptIDs) {
					last = append(last, out[0])
				}
			}
		}
		check("chunked by 4", last)
	}
}

// A freed slot restarts at position 0 and gives a fresh engine's numbers.
func TestGPUFreeAndRefill(t *testing.T) {
	needGPU(t)
	m, cases := loadShared(t, sharedModels[0])
	o := engine.Options{Slots: 2, MaxSeqLen: 128, TopK: 10, MetricLayer: -1}
	e := newGPU(t, m, o)
	step(t, e, engine.Input{Slot: 1, Tokens: cases[2].PromptIDs}, engine.Input{Slot: 0, Tokens: cases[1].PromptIDs})
	e.Free(1)
	require.Equal(t, 0, e.Len(1))
	require.Equal(t, len(cases[1].PromptIDs), e.Len(0))
	got := step(t, e, engine.Input{Slot: 1, Tokens: cases[0].PromptIDs})
	fresh := step(t, newGPU(t, m, o), engine.Input{Slot: 1, Tokens: cases[0].PromptIDs})
	require.Equal(t, fresh[0].Dist.Candidates, got[0].Dist.Candidates)
	require.Equal(t, fresh[0].Attn.HeadEntropy, got[0].Attn.HeadEntropy)
}

func TestGPUStepErrorsLikeCPU(t *testing.T) {
	needGPU(t)
	m, _ := loadShared(t, sharedModels[0])
	o := engine.Options{Slots: 2, MaxSeqLen: 8, PrefillChunk: 4, MetricLayer: -1}
	g, c := newGPU(t, m, o), newCPU(t, m, o)
	for _, in := range [][]engine.Input{
		{{Slot: 2, Tokens: []int32{1}}},
		{{Slot: 0, Tokens: []int32{1}}, {Slot: 0, Tokens: []int32{1}}},
		{{Slot: 0}},
		{{Slot: 0, Tokens: make([]int32, 5)}},
		{{Slot: 0, Tokens: []int32{int32(m.Config.VocabSize)}}},
	} {
		var out []engine.Output
		ge, ce := g.Step(bg, in, &out), c.Step(bg, in, &out)
		require.Error(t, ge)
		require.Error(t, ce)
		require.Contains(t, ge.Error(), ce.Error()[len("cpu engine: step: "):])
	}
	require.Zero(t, g.Len(0))
	require.Error(t, g.Step(bg, nil, nil))
}

func TestGPUOutOfMemoryAdvice(t *testing.T) {
	needGPU(t)
	m, _ := loadShared(t, sharedModels[1]) // tiny-llama3: a 128k vocabulary
	_, err := New(m, engine.Options{Slots: 60000, MaxSeqLen: 131072, MetricLayer: -1}, 0)
	require.ErrorContains(t, err, "out of device memory on GPU 0")
	require.ErrorContains(t, err, "fits: at most")
	_, err = New(m, engine.Options{Slots: 1, MaxSeqLen: 16, MetricLayer: -1}, 1<<20)
	require.ErrorContains(t, err, "device 1048576 requested")
}

// One engine per device, as the runner fans out: every GPU gives the same numbers.
func TestGPUEveryDevice(t *testing.T) {
	needGPU(t)
	n, err := DeviceCount()
	require.NoError(t, err)
	m, cases := loadShared(t, sharedModels[0])
	o := engine.Options{Slots: 1, MaxSeqLen: 64, TopK: 5, MetricLayer: -1}
	var first []engine.Output
	for d := 0; d < n; d++ {
		e, err := New(m, o, d)
		require.NoError(t, err, "device %d", d)
		out := step(t, e, engine.Input{Slot: 0, Tokens: cases[2].PromptIDs})
		require.NoError(t, e.Close())
		if d == 0 {
			first = out
			continue
		}
		require.Equal(t, first[0].Dist.Candidates, out[0].Dist.Candidates, "device %d", d)
	}
}

// The strided-batched binding computes what a host loop computes.
func TestGPUCublasStridedBatchedGemm(t *testing.T) {
	needGPU(t)
	m, _ := loadShared(t, sharedModels[0])
	e := newGPU(t, m, engine.Options{Slots: 1, MaxSeqLen: 16, MetricLayer: -1})
	unbind, err := e.dev.bind()
	require.NoError(t, err)
	defer unbind()
	const batch, rows, n, k = 3, 5, 7, 16
	rng := rand.New(rand.NewPCG(1, 1))
	w, x := make([]uint16, batch*n*k), make([]uint16, batch*rows*k)
	for i := range w {
		w[i] = engine.F32ToBF16(float32(rng.NormFloat64()))
	}
	for i := range x {
		x[i] = engine.F32ToBF16(float32(rng.NormFloat64()))
	}
	dw, err := e.dev.alloc(int64(2*len(w)), "test w")
	require.NoError(t, err)
	dx, err := e.dev.alloc(int64(2*len(x)), "test x")
	require.NoError(t, err)
	dy, err := e.dev.alloc(int64(4*batch*rows*n), "test y")
	require.NoError(t, err)
	require.NoError(t, e.dev.upload(dw, unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 2*len(w))))
	require.NoError(t, e.dev.upload(dx, unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 2*len(x))))
	require.NoError(t, e.blas.gemm(rowMajorGemmBatched(dw, dx, dy, rows, n, k, batch, n*k, rows*k, rows*n, 0)))
	y := make([]float32, batch*rows*n)
	require.NoError(t, e.dev.download(f32Bytes(y), dy))
	require.NoError(t, e.dev.sync())
	for b := 0; b < batch; b++ {
		for r := 0; r < rows; r++ {
			for c := 0; c < n; c++ {
				var want float64
				for i := 0; i < k; i++ {
					want += float64(engine.BF16ToF32(x[(b*rows+r)*k+i])) * float64(engine.BF16ToF32(w[(b*n+c)*k+i]))
				}
				require.InDelta(t, want, y[(b*rows+r)*n+c], 1e-4)
			}
		}
	}
}

// On the GPU, sequences started from copied blocks (cuMemcpyDtoDAsync) match the same
// prompts prefilled from scratch on the same engine, at the GPU tests' tolerances
// (cuBLAS may pick other kernels for the shorter step): a sibling of a live slot, a
// slot reusing part of a block, and a prompt continuing a stored leaf.
func TestGPUPrefixSharing(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels[:5] {
		m, cases := loadShared(t, sm)
		a, b, c, _ := prefixPrompts(t, cases[1].PromptIDs, m.Config.VocabSize)
		o := engine.Options{Slots: 3, MaxSeqLen: 80, MetricLayer: -1, PrefixCacheBytes: 8 * prefixBlockBytes(&m.Config)}
		e := newGPU(t, m, o)
		require.NotNil(t, e.prefix)
		r := report{}
		want := map[string]engine.Output{}
		for name, p := range map[string][]int32{"b": b, "c": c, "a": a} { // a last: it stays in slot 0
			e.Free(0)
			want[name] = feed(t, e, 0, p, 0, len(p), 0)[0]
		}
		_, err := e.AttachPrefix(0, a) // slot 0 holds a: attaching needs an empty slot
		require.ErrorContains(t, err, "free it first")
		for _, tc := range []struct {
			name   string
			slot   int
			prompt []int32
			reused int
		}{{"a", 1, a, 0}, {"a", 2, a, len(a) - 1}, {"b", 1, b, 20}, {"c", 2, c, len(a)}} {
			e.Free(tc.slot)
			n, err := e.AttachPrefix(tc.slot, tc.prompt)
			require.NoError(t, err)
			require.Equal(t, tc.reused, n, "%s %s in slot %d", sm.Name, tc.name, tc.slot)
			got := feed(t, e, tc.slot, tc.prompt, n, 16, 0)
			w := want[tc.name]
			compareOutput(t, fmt.Sprintf("%s/%s/slot%d", sm.Name, tc.name, tc.slot), &got[0], &w, sm.tol, r)
		}
		r.log(t, sm.Name+"/prefix sharing")
	}
}

// Every Entropix variant takes the CPU backend's branch at every step on every shared
// model, and the same token wherever the branch picks it without a draw (tokens drawn
// over a flat distribution may differ; they are counted in the log).
func TestGPUEntropixDecisionsMatchCPU(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		bf := bf16Model(t, m)
		runs := entropixDecisions(t, m, cases[0].PromptIDs, 24,
			func(o engine.Options) engine.Engine { return newGPU(t, m, o) },
			func(o engine.Options) engine.Engine { return newCPU(t, bf, o) })
		for _, r := range runs {
			t.Logf("%s %s", sm.Name, r)
			require.Zero(t, r.strategy+r.token, "%s %s", sm.Name, r)
		}
	}
}

// Token scoring on the GPU against the CPU backend's scores on every shared model
// (log-probabilities at the statistics tolerance, greedy flags outside the BF16 noise),
// the last position's score equal to the output's own log-softmax, and batched,
// alone and split scores within the tolerance (their differences logged).
func TestGPUScoresMatchCPU(t *testing.T) {
	needGPU(t)
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		checkScoring(t, sm, m, cases, false, func(tokenCap int) engine.Engine {
			e := newGPU(t, m, engine.Options{Slots: len(cases), MaxSeqLen: 64, MetricLayer: -1})
			if tokenCap > 0 {
				e.plan.TokenCap = tokenCap
			}
			return e
		})
	}
}

// Attention split into 32-key spans (every decode step of the shared models' prompts
// past 32 keys) gives the unsplit launch's tokens and numbers within the batching
// bounds: attention_combine's merge on the GPU.
func TestGPUSplitAttentionMatchesUnsplit(t *testing.T) {
	needGPU(t)
	checkSplitAttention(t, func(t testing.TB, m *engine.Model, o engine.Options) engine.Engine { return newGPU(t, m, o) })
}
