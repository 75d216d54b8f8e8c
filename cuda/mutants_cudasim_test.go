//go:build cudasim

package cuda

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// mutants are deliberately broken copies of the kernels: the host tests must catch
// each. The original text must occur exactly once, so an edit of the kernel that
// moves it fails here rather than silently testing nothing.
// A mutant of the logits kernels meets logitsProbe instead of probe.
var mutants = []struct {
	name, file, from, to string
	logits               bool
}{
	{"barrier removed after the query load", "attention.cu",
		"        qs[i] = q[((size_t)t * heads + h0) * headDim + i] * scale;\n    __syncthreads();\n",
		"        qs[i] = q[((size_t)t * heads + h0) * headDim + i] * scale;\n", false},
	{"off-by-one in the KV index of P·V", "attention.cu",
		"const __nv_bfloat16* vr = vb + (size_t)(j0 + jj) * headDim;",
		"const __nv_bfloat16* vr = vb + (size_t)(j0 + jj + 1) * headDim;", false},
	{"shuffle from the wrong lane", "attention.cu",
		"float p = __shfl_sync(FULL_MASK, sc[hh], jj);",
		"float p = __shfl_sync(FULL_MASK, sc[hh], jj + 1);", false},
	// Subtler: the leading barrier of the block reduction only matters when a kernel
	// reduces twice with the same scratch (logit_stats, attn_head_stats do).
	// Only head dims that are not a multiple of 8 take this path (the probe's dim-12 model).
	{"half of each score dropped in the 4-byte key path", "attention.cu",
		"if (hh < hb) sc[hh] += qs[hh * headDim + d] * kv.x + qs[hh * headDim + d + 1] * kv.y;",
		"if (hh < hb) sc[hh] += qs[hh * headDim + d] * kv.x;", false},
	{"leading barrier of block_sum_d removed", "common.cuh",
		"    v = warp_sum_d(v);\n    __syncthreads();\n",
		"    v = warp_sum_d(v);\n", false},
	{"attention_combine drops a row's last, partial split", "attention.cu",
		"int n = min(splits, (pos[t] + span) / span);", "int n = min(splits, (pos[t] + 1) / span);", false},
	{"attention_cached's split one key short", "attention.cu",
		"je = splits == 1 ? nKeys : min(nKeys, jb + span);", "je = splits == 1 ? nKeys : min(nKeys, jb + span - 1);", false},
	{"attention_combine's sums not rescaled", "attention.cu",
		"            L += ps[1] * f;\n", "            L += ps[1];\n", false},
	{"logit_stats_finish adds a chunk of only -Inf", "logits.cu",
		"        if (p[4 * b + 1] == 0.0) continue; // only -Inf entries\n", "", true},
	{"logit_stats_part's second moment not centred", "logits.cu",
		"        double d = s - mean;\n", "        double d = s;\n", true},
	{"topk_select's threshold counts in one buffer", "logits.cu",
		"if (block_count(n1, cnt[call++ & 1]) >= k) T = c;", "if (block_count(n1, cnt[0]) >= k) T = c;", true},
	{"topk_select's id bound off by one", "logits.cu",
		"n3 += key[j] == T && (unsigned)id[j] < c;", "n3 += key[j] == T && (unsigned)id[j] <= c;", true},
	{"topk_select takes one tied entry too few", "logits.cu",
		"if (rankB < k - a) at = a + rankB;", "if (rankB < k - a - 1) at = a + rankB;", true},
}

// logitsProbe is the crafted-rows check of the logits kernels on three of its cases:
// ties at the top-K threshold, padding, a chunk of only -Inf.
func logitsProbe(tb testing.TB, dev func(testing.TB) backend) {
	for i, tc := range craftedLogitCases {
		if tc.vocab == 300 || tc.vocab == 4100 || tc.vocab == 2049 {
			checkLogitKernels(tb, dev(tb), tc.vocab, tc.k, tc.rows, uint64(i))
		}
	}
}

// recorder is a testing.TB whose failures are recorded, not reported: it runs a test
// body that is expected to fail.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.FailNow() }
func (r *recorder) Fail()                     { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recorder) FailNow()                  { r.Fail(); runtime.Goexit() }
func (r *recorder) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }

// expectFailure runs body on a recorder and returns what it reported.
func expectFailure(t *testing.T, body func(tb testing.TB)) (bool, string) {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(r)
	}()
	<-done
	return r.Failed(), strings.Join(r.msgs, "\n")
}

// probe is the part of the host tests a mutant meets: stories260K (trained, sharp
// attention) through prefill and greedy decoding of its golden prompts, longest first;
// then a GQA group of 3 at head dim 64 over 150 keys with grouped heads, and head dim
// 12 (the 4-byte key loads) over 40, each against the CPU backend. Attention splits
// rows into 32-key spans where it splits (one head per block): stories260K's decoding
// and the head-dim-12 prefill, whose rows hold one or two spans.
func probe(tb testing.TB, dev func(testing.TB) backend) {
	withSplitKeys(32, func() { probeModels(tb, dev) })
}

func probeModels(tb testing.TB, dev func(testing.TB) backend) {
	sm := sharedModels[0]
	m, cases := loadShared(tb, sm)
	o := engine.Options{Slots: 1, MaxSeqLen: 64, MetricLayer: -1, PrefixCacheBytes: -1}
	run := func(m *engine.Model, o engine.Options, tol tolerances, prompts ...[]int32) {
		p, err := newPipeline(m, o)
		require.NoError(tb, err)
		require.NoError(tb, p.setup(m, dev(tb)))
		g, c := emulated{p}, newCPU(tb, bf16Model(tb, m), o)
		for _, ids := range prompts {
			g.Free(0)
			c.Free(0)
			gOut, cOut := step(tb, g, engine.Input{Tokens: ids}), step(tb, c, engine.Input{Tokens: ids})
			compareOutput(tb, "prefill", &gOut[0], &cOut[0], tol, report{})
			for s := 0; s < 4; s++ {
				tok := cOut[0].Dist.Candidates[0].ID
				gOut, cOut = step(tb, g, engine.Input{Tokens: []int32{tok}}), step(tb, c, engine.Input{Tokens: []int32{tok}})
				compareOutput(tb, fmt.Sprintf("decode %d", s), &gOut[0], &cOut[0], tol, report{})
			}
		}
	}
	var prompts [][]int32 // longest first: a mutant meets many keys before a 1-token prompt
	for _, c := range cases {
		prompts = append(prompts, c.PromptIDs)
	}
	sort.Slice(prompts, func(i, j int) bool { return len(prompts[i]) > len(prompts[j]) })
	run(m, o, sm.tol, prompts...)
	gm := buildModelTB(tb, gqaShapes[1], 11)
	ids := make([]int32, 150)
	for i := range ids {
		ids[i] = int32(i * 7 % gqaShapes[1].VocabSize)
	}
	o.MaxSeqLen = 160
	withGroupedHeads(func() { run(gm, o, scaledQKTol, ids) })
	run(buildModelTB(tb, gqaShapes[4], 12), o, scaledQKTol, ids[:40])
}

// Each broken kernel copy fails the host tests; the unbroken sources pass the same
// probe (so the failures are the mutants').
func TestBrokenKernelsAreCaught(t *testing.T) {
	for _, pr := range []func(testing.TB, func(testing.TB) backend){probe, logitsProbe} {
		failed, msg := expectFailure(t, func(tb testing.TB) { pr(tb, newTestDevice) })
		require.False(t, failed, "the unmodified kernels must pass the probes:\n%s", msg)
	}
	for _, mu := range mutants {
		t.Run(mu.name, func(t *testing.T) {
			src := kernelSources(t)
			require.Equal(t, 1, bytes.Count(src[mu.file], []byte(mu.from)), "%s: the text to break is not in %s exactly once", mu.name, mu.file)
			src[mu.file] = bytes.Replace(src[mu.file], []byte(mu.from), []byte(mu.to), 1)
			mod := loadKernels(t, src)
			pr := probe
			if mu.logits {
				pr = logitsProbe
			}
			failed, msg := expectFailure(t, func(tb testing.TB) {
				pr(tb, func(tb testing.TB) backend { return newSimDevice(tb, mod) })
			})
			require.True(t, failed, "%s: the host tests did not notice", mu.name)
			if len(msg) > 2500 {
				msg = msg[:2500] + " …"
			}
			t.Logf("%s: caught:\n%s", mu.name, msg)
		})
	}
}
