//go:build unix

package eval

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
)

// BenchmarkScoredMMLU5Shot scores MMLU-shaped 5-shot questions on the random
// SmolLM2-135M (BF16 weights, fp32 compute): a 600-token few-shot prefix
// shared by every question, a 60-token question, four one-token choices (" A"
// … " D"), which end on the same token and so run as one sequence. It reports
// questions/s, the prefill tokens computed per token requested (the prefix
// cache's saving) and the projected time of full MMLU (14,042 questions).
//
//	go test -run '^$' -bench ScoredMMLU5Shot -benchtime 48x ./eval/
func BenchmarkScoredMMLU5Shot(b *testing.B) {
	const (
		prefixLen, questionLen = 600, 60
		mmluQuestions          = 14042
	)
	spec, err := engine.TestModelPreset("smollm2-135m")
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "smollm2-135m")
	if err := engine.BuildTestModel(dir, spec); err != nil {
		b.Fatal(err)
	}
	m, err := engine.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	eng, err := cpu.New(m, engine.Options{Slots: 8, MaxSeqLen: 1024, MetricLayer: -1, Threads: 2, TopK: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	r := rand.New(rand.NewPCG(1, 2))
	ids := func(n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(r.IntN(m.Config.VocabSize))
		}
		return out
	}
	prefix := ids(prefixLen)
	choices := ids(4)
	q := &seqQueue{}
	for i := range b.N {
		doc := &loglik.Doc{OutputType: loglik.MultipleChoice, Choices: []string{"A", "B", "C", "D"}}
		p := &scoredProblem{entry: ProblemEntry{Index: i, Scoring: doc}}
		seq := &scoredSeq{prob: p, input: append(append([]int32{}, prefix...), ids(questionLen)...)}
		for k, c := range choices {
			doc.Requests = append(doc.Requests, loglik.Request{})
			seq.targets = append(seq.targets, []int32{c})
			seq.sums, seq.greedy = append(seq.sums, 0), append(seq.greedy, true)
			p.parts = append(p.parts, []seqPart{{0, k}})
		}
		p.seqs, p.pending = []*scoredSeq{seq}, 1
		q.seqs = append(q.seqs, seq)
	}
	done := 0
	s, err := newScoredScheduler(0, eng, q, func(*scoredProblem) error { done++; return nil })
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0, start := cpuSeconds(), time.Now()
	if err := s.run(context.Background()); err != nil {
		b.Fatal(err)
	}
	wall, cpuUsed := time.Since(start), cpuSeconds()-cpu0
	b.StopTimer()
	if done != b.N {
		b.Fatalf("%d of %d questions finished", done, b.N)
	}
	qps := float64(b.N) / wall.Seconds()
	b.ReportMetric(qps, "questions/s")
	b.ReportMetric(float64(s.stats.PrefillComputed)/float64(s.stats.PromptTokens), "computed/requested")
	b.ReportMetric(float64(s.stats.PrefillComputed)/wall.Seconds(), "computed-tok/s")
	// Per CPU second, as the llama.cpp harness's tok_cpu_s: less hostage to a loaded machine.
	b.ReportMetric(float64(s.stats.PrefillComputed)/cpuUsed, "computed-tok/cpu-s")
	b.ReportMetric(mmluQuestions/qps/60, "mmlu-min")
}

// cpuSeconds is the process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
