package eval

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Progress shows how a run advances: problems done, tokens per second and an ETA.
type Progress interface {
	progressSink
	Start(devices []string, items int)
	Finish()
}

// IsTerminal reports whether f is a character device, i.e. a person is watching.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// NewProgress returns live bars when out is a terminal, periodic log lines otherwise.
func NewProgress(out *os.File, log *slog.Logger, every time.Duration) Progress {
	if IsTerminal(out) {
		return NewBars(out)
	}
	return NewLogLines(log, every)
}

// NewBars draws one live bar per worker and a total on out.
func NewBars(out io.Writer) Progress { return &barProgress{out: out} }

// NewLogLines logs the overall progress at most once per interval.
func NewLogLines(log *slog.Logger, every time.Duration) Progress {
	return &logProgress{log: log, every: every}
}

// counts are the shared tallies both renderings read.
type counts struct {
	mu      sync.Mutex
	start   time.Time
	total   int
	done    []int
	tokens  []int
	devices []string
}

func (c *counts) reset(devices []string, items int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start, c.total, c.devices = time.Now(), items, devices
	c.done, c.tokens = make([]int, len(devices)), make([]int, len(devices))
}

// snapshot returns one worker's counts and the overall ETA.
func (c *counts) snapshot(w int) (done, tokens int, tokPerS float64, eta time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := time.Since(c.start).Seconds()
	all := 0
	for _, d := range c.done {
		all += d
	}
	if w >= 0 {
		done, tokens = c.done[w], c.tokens[w]
	} else {
		done = all
		for _, t := range c.tokens {
			tokens += t
		}
	}
	if el > 0 {
		tokPerS = float64(tokens) / el
	}
	if all > 0 {
		eta = time.Duration(el / float64(all) * float64(c.total-all) * float64(time.Second))
	}
	return done, tokens, tokPerS, eta
}

func (c *counts) add(w, done, tokens int) {
	c.mu.Lock()
	c.done[w] += done
	c.tokens[w] += tokens
	c.mu.Unlock()
}

// logProgress writes one slog line per interval, for batch jobs whose stderr is a file.
type logProgress struct {
	counts
	log      *slog.Logger
	every    time.Duration
	lastLine time.Time
	lineMu   sync.Mutex
}

func (p *logProgress) Start(devices []string, items int) {
	p.reset(devices, items)
	p.lastLine = time.Now()
}

func (p *logProgress) Tokens(w, n int) { p.add(w, 0, n) }

func (p *logProgress) Done(w int) {
	p.add(w, 1, 0)
	p.lineMu.Lock()
	due := time.Since(p.lastLine) >= p.every
	if due {
		p.lastLine = time.Now()
	}
	p.lineMu.Unlock()
	if due {
		p.line()
	}
}

func (p *logProgress) line() {
	done, _, tps, eta := p.snapshot(-1)
	p.log.Info("progress", "done", done, "total", p.total, "tok_per_s", fmt.Sprintf("%.1f", tps), "eta", eta.Round(time.Second).String())
}

func (p *logProgress) Finish() { p.line() }

// barProgress draws one bar per worker plus a total, refreshed by mpb.
type barProgress struct {
	counts
	out   io.Writer
	p     *mpb.Progress
	bars  []*mpb.Bar
	total *mpb.Bar

	mu    sync.Mutex // guards drawn: log lines go through p only while it draws
	drawn *mpb.Progress
}

// LogWriter is where log lines should go while bars may be drawn: above the bars
// while they are on screen (so a warning does not tear a frame), straight to the
// output otherwise.
func (b *barProgress) LogWriter() io.Writer { return barLogWriter{b} }

type barLogWriter struct{ b *barProgress }

func (w barLogWriter) Write(line []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	if w.b.drawn != nil {
		return w.b.drawn.Write(line)
	}
	return w.b.out.Write(line)
}

func (b *barProgress) Start(devices []string, items int) {
	b.reset(devices, items)
	b.p = mpb.New(mpb.WithOutput(b.out), mpb.WithRefreshRate(200*time.Millisecond), mpb.WithAutoRefresh())
	b.mu.Lock()
	b.drawn = b.p
	b.mu.Unlock()
	// A worker's bar is its share of all items: workers pull from one queue, so no
	// worker knows in advance how many items it will take.
	b.bars = make([]*mpb.Bar, len(devices))
	for w, dev := range devices {
		b.bars[w] = b.p.AddBar(int64(items),
			mpb.PrependDecorators(decor.Name(fmt.Sprintf("worker %d %-8s", w, dev))),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				done, _, tps, _ := b.snapshot(w)
				return fmt.Sprintf("%d done  %.0f tok/s", done, tps)
			})))
	}
	b.total = b.p.AddBar(int64(items),
		mpb.PrependDecorators(decor.Name("total          "), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			_, _, tps, eta := b.snapshot(-1)
			return fmt.Sprintf("%.0f tok/s  ETA %s", tps, eta.Round(time.Second))
		})))
}

func (b *barProgress) Tokens(w, n int) { b.add(w, 0, n) }

func (b *barProgress) Done(w int) {
	b.add(w, 1, 0)
	b.bars[w].Increment()
	b.total.Increment()
}

// Finish stops the bars where they are (a worker's bar never reaches the total of
// all items, and an interrupted run's total bar stops short) and waits for the last
// frame, so log lines written after it do not interleave with the bars.
func (b *barProgress) Finish() {
	for _, bar := range append(b.bars, b.total) {
		bar.Abort(false) // a no-op on a completed bar; false keeps it on screen
	}
	b.p.Wait()
	b.mu.Lock()
	b.drawn = nil
	b.mu.Unlock()
}
