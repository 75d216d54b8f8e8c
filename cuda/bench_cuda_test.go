//go:build cuda

package cuda

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// The performance bar (docs/cuda.md): decode at batch 1/16/64/256 with 512 tokens of
// context, prefill, the memory-bandwidth floor at batch 1, and what the statistics and
// the sampler cost at batch 64. ENTROPIX_BENCH_MODEL is a checkpoint directory
// (cuda/bench/window.sh builds the llama-3.2-1b preset into one and runs decode at
// batch 1 and 64 and prefill at 64 x 512).

const (
	benchContext = 512 // tokens in each slot before decoding
	benchDecode  = 128 // decode positions before a slot is refilled (context 512..639)
	benchTopK    = 27  // the original Entropix top_k
)

var benchModel struct {
	once sync.Once
	m    *engine.Model
	err  error
}

func loadBenchModel(b *testing.B) *engine.Model {
	b.Helper()
	needGPU(b)
	path := os.Getenv("ENTROPIX_BENCH_MODEL")
	if path == "" {
		b.Skip("ENTROPIX_BENCH_MODEL is not set (cuda/bench/window.sh sets it)")
	}
	benchModel.once.Do(func() { benchModel.m, benchModel.err = engine.Load(path) })
	if benchModel.err != nil {
		b.Fatal(benchModel.err)
	}
	return benchModel.m
}

func benchEngine(b *testing.B, m *engine.Model, slots int) *Engine {
	b.Helper()
	e, err := newEngine(m, engine.Options{Slots: slots, MaxSeqLen: benchContext + benchDecode, TopK: benchTopK, MetricLayer: -1}, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// fill prefills every slot with benchContext random tokens.
func fill(b *testing.B, e *Engine, rng *rand.Rand) []engine.Output {
	b.Helper()
	var in []engine.Input
	for s := 0; s < e.opts.Slots; s++ {
		e.Free(s)
		in = append(in, engine.Input{Slot: s, Tokens: randomPrompt(rng, benchContext, e.cfg.VocabSize)})
	}
	var out []engine.Output
	if err := e.Step(bg, in, &out); err != nil {
		b.Fatal(err)
	}
	return out
}

// decodeLoop runs b.N decode steps of every slot, refilling (untimed) when the
// cache is full, and reports tokens/s.
func decodeLoop(b *testing.B, e *Engine) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill(b, e, rng)
	in := make([]engine.Input, e.opts.Slots)
	var out []engine.Output
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.lens[0] == e.opts.MaxSeqLen {
			b.StopTimer()
			fill(b, e, rng)
			b.StartTimer()
		}
		for s := range in {
			in[s] = engine.Input{Slot: s, Tokens: []int32{int32(rng.IntN(e.cfg.VocabSize))}}
		}
		if err := e.Step(bg, in, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(e.opts.Slots*b.N)/b.Elapsed().Seconds(), "tok/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}

func BenchmarkDecode(b *testing.B) {
	for _, batch := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			m := loadBenchModel(b)
			e := benchEngine(b, m, batch)
			decodeLoop(b, e)
			if batch == 1 {
				reportBandwidthFloor(b, e)
			}
		})
	}
}

// reportBandwidthFloor compares a batch-1 step with the time to read every weight
// and the average KV cache once at the GPU's peak bandwidth.
func reportBandwidthFloor(b *testing.B, e *Engine) {
	gbs := peakBandwidthGBs(e.dev.name)
	if gbs <= 0 {
		b.Logf("unknown peak bandwidth for %q: set ENTROPIX_BENCH_BW_GBS to report the floor", e.dev.name)
		return
	}
	c := &e.cfg
	avgCtx := benchContext + benchDecode/2
	bytes := float64(e.layout.Total) + float64(kvBytes(c, 1, avgCtx))
	floor := bytes / (gbs * 1e9)
	step := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(floor*1e3, "floor-ms/step")
	b.ReportMetric(floor/step, "bw-floor-frac")
}

// peakBandwidthGBs is the HBM bandwidth of known parts, or ENTROPIX_BENCH_BW_GBS.
func peakBandwidthGBs(name string) float64 {
	if s := os.Getenv("ENTROPIX_BENCH_BW_GBS"); s != "" {
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	switch {
	case strings.Contains(name, "H200"):
		return 4800
	case strings.Contains(name, "H100") && strings.Contains(name, "PCIe"):
		return 2000
	case strings.Contains(name, "H100"):
		return 3350 // SXM5 HBM3
	case strings.Contains(name, "A100") && strings.Contains(name, "80GB"):
		return 2039
	}
	return 0
}

func BenchmarkPrefill(b *testing.B) {
	for _, batch := range []int{1, 64} { // 64: the peer's batch in cuda/bench/window.sh
		b.Run(fmt.Sprintf("batch=%dx%d", batch, benchContext), func(b *testing.B) {
			m := loadBenchModel(b)
			e := benchEngine(b, m, batch)
			rng := rand.New(rand.NewPCG(3, 4))
			fill(b, e, rng) // warm-up: JIT, cuBLAS heuristics
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fill(b, e, rng)
			}
			b.StopTimer()
			b.ReportMetric(float64(batch*benchContext*b.N)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkStats measures a batch-64 decode step with and without the device
// statistics (logits stats, attention stats, top-K, their copy back).
func BenchmarkStats(b *testing.B) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("batch=64/stats=%v", on), func(b *testing.B) {
			m := loadBenchModel(b)
			e := benchEngine(b, m, 64)
			e.skipStats = !on
			decodeLoop(b, e)
		})
	}
}

// BenchmarkSampler is the host side per batch-64 step: the Entropix sampler over
// 64 real Dist/AttnStats pairs.
func BenchmarkSampler(b *testing.B) {
	m := loadBenchModel(b)
	e := benchEngine(b, m, 64)
	outs := fill(b, e, rand.New(rand.NewPCG(5, 6)))
	spec, err := sampler.ParseConfig(map[string]any{"name": "entropix", "clarifying_token_id": 2564})
	if err != nil {
		b.Skip(err)
	}
	s, err := spec.New(nil)
	if err != nil {
		b.Skip(err)
	}
	rngs := make([]*sampler.RNG, len(outs))
	for i := range rngs {
		rngs[i] = sampler.NewRNG(1, strconv.Itoa(i), 0)
	}
	history := make([]int32, 0, 256)
	var sink metrics.Candidate
	start := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range outs {
			d, err := s.Sample(&outs[j].Dist, &outs[j].Attn, history, rngs[j])
			if err != nil {
				b.Fatal(err)
			}
			sink.ID = d.Token
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/batch64")
	_ = sink
}
