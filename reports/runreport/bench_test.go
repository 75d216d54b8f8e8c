package runreport

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/entropix-eval/entropix-eval/internal/browsertest"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// go test -run '^$' -bench BuildLarge -benchtime 1x ./reports/runreport/
//
// The issue's large run: 1319 problems × 3 samplers × 3 seeds, about three
// million trace rows. The fixture is written once per process (not timed).

var large struct {
	once sync.Once
	dir  string
	err  error
}

func largeRun(b *testing.B) string {
	large.once.Do(func() {
		large.dir, large.err = os.MkdirTemp("", "entropix-large-run-")
		if large.err == nil {
			large.err = fixture.Write(large.dir, fixture.Large())
		}
	})
	if large.err != nil {
		b.Fatal(large.err)
	}
	return large.dir
}

// TestMain removes the large fixture, shared by the benchmarks, at the end.
func TestMain(m *testing.M) {
	code := m.Run()
	if large.dir != "" {
		os.RemoveAll(large.dir)
	}
	os.Exit(code)
}

func BenchmarkBuildLarge(b *testing.B) {
	dir := largeRun(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	for name, file := range map[string]string{"html-MiB": HTMLFile, "traces-MiB": TracesFile} {
		if st, err := os.Stat(filepath.Join(dir, file)); err == nil {
			b.ReportMetric(float64(st.Size())/(1<<20), name)
		}
	}
}

// BenchmarkComputeLarge is Build without writing: the statistics and the one
// pass over traces.arrow.
func BenchmarkComputeLarge(b *testing.B) {
	dir := largeRun(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compute(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenLargeReport opens the large run's report.html in headless
// Chromium and reports what a reader waits for, measured inside the page:
// ms-to-list is navigation start until DOMContentLoaded (the inline script has
// parsed the problems and drawn the first page of the browser by then);
// ms-open-problem is opening a problem with per-token detail, whose first
// opening also parses the token block.
func BenchmarkOpenLargeReport(b *testing.B) {
	bin := browsertest.Chromium(b)
	dir := largeRun(b)
	if _, err := os.Stat(filepath.Join(dir, HTMLFile)); err != nil {
		if _, err := Build(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	ctx, issues := browsertest.Open(b, bin)
	url := "file://" + filepath.Join(dir, HTMLFile)
	var toList, toOpen float64
	b.ResetTimer()
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#list details.problem")); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`))
		if err != nil {
			b.Fatal(err)
		}
		toList += ms
		ms, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(done => {
		  const d = document.querySelector('#list details.problem'), t0 = performance.now();
		  d.addEventListener('toggle', () => requestAnimationFrame(() => done(performance.now() - t0)), {once: true});
		  d.open = true;
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		toOpen += ms
	}
	b.StopTimer()
	b.ReportMetric(toList/float64(b.N), "ms-to-list")
	b.ReportMetric(toOpen/float64(b.N), "ms-open-problem")
	if got := issues.Get(); len(got) > 0 {
		b.Fatalf("page issues: %v", got)
	}
}
