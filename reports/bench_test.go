package reports

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// go test -run '^$' -bench 'Traces1M|Bootstrap' -benchmem -benchtime 3x ./reports/

const benchTraceRows = 1_000_000

// benchTrace fills row with the i-th synthetic token: realistic shapes (short
// token text, a few distinct strategies, nulls in about half the optional
// columns) without allocating per row.
func benchTrace(row *TraceRow, i int) {
	strategies := [...]string{"argmax", "branch", "resample", "adaptive"}
	texts := [...]string{" the", " 42", ".", " eggs", "\n", " answer"}
	row.RunID = "gsm8k_cot/entropix-s1"
	row.Task = "gsm8k_cot"
	row.ProblemID = int32(i / 256)
	row.Repeat = 0
	row.Step = int32(i % 256)
	row.Token = int32(i*7919) % 128256
	row.Text = texts[i%len(texts)]
	row.Strategy = sampler.Strategy(strategies[i%len(strategies)])
	f := float64(i%1000) / 1000
	row.Entropy, row.Varentropy = 3*f, 10*f
	if i%2 == 0 {
		row.AttnEntropy, row.AttnVarentropy = 4*f, f
		row.Agreement, row.InteractionStrength = f/10, 5*f
	} else {
		nan := math.NaN()
		row.AttnEntropy, row.AttnVarentropy, row.Agreement, row.InteractionStrength = nan, nan, nan, nan
	}
	row.Temperature = 0.7
	row.TopK, row.TopP, row.MinP = 0, 1, 0
	switch i % 3 {
	case 0:
		row.TopK = 27
	case 1:
		row.TopP = 0.9
	case 2:
		row.MinP = 0.1
	}
	row.LogProb, row.VocabTailMass = -f, f/100
}

// peakHeap samples the live heap; ReadMemStats stops the world, so callers
// sample every 64k rows only.
type peakHeap struct{ max uint64 }

func (p *peakHeap) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p.max = max(p.max, m.HeapInuse)
}

func (p *peakHeap) report(b *testing.B) { b.ReportMetric(float64(p.max)/(1<<20), "peak-heap-MiB") }

func writeBenchTraces(b *testing.B, path string) { writeBenchTracesSampled(b, path, nil) }

func writeBenchTracesSampled(b *testing.B, path string, peak *peakHeap) {
	w, err := CreateTraces(path)
	if err != nil {
		b.Fatal(err)
	}
	var row TraceRow
	for i := range benchTraceRows {
		benchTrace(&row, i)
		if err := w.Write(&row); err != nil {
			b.Fatal(err)
		}
		if peak != nil && i%(1<<16) == 0 {
			peak.sample()
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkWriteTraces1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "traces.arrow")
	b.ReportAllocs()
	var peak peakHeap
	for b.Loop() {
		writeBenchTracesSampled(b, path, &peak)
	}
	peak.report(b)
	b.ReportMetric(float64(benchTraceRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	if info, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(info.Size())/benchTraceRows, "file-B/row")
	}
}

func BenchmarkReadTraces1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "traces.arrow")
	writeBenchTraces(b, path)
	b.ReportAllocs()
	var sum float64
	var peak peakHeap
	for b.Loop() {
		r, err := OpenTraces(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			row := r.Row()
			sum += row.Entropy
			if n%(1<<16) == 0 {
				peak.sample()
			}
			n++
		}
		if err := r.Err(); err != nil || n != benchTraceRows {
			b.Fatalf("read %d rows: %v", n, err)
		}
		r.Close()
	}
	peak.report(b)
	b.ReportMetric(float64(benchTraceRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	_ = sum
}

func BenchmarkPairedBootstrap1319x10000(b *testing.B) {
	a, c := syntheticPair(1319, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PairedBootstrap(a, c, BootstrapOptions{Resamples: 10000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
