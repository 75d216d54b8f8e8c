package history

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
)

// HTMLFile is the history page's file name under --out.
const HTMLFile = "history.html"

//go:embed history.tmpl
var pageTemplate string

var page = template.Must(template.New("history").Funcs(template.FuncMap{
	"pct":  func(x float64) string { return pctText(x) },
	"pp":   func(x float64) string { return reports.SignedPP(x) },
	"p":    func(x float64) string { return reports.FormatP(x) },
	"date": func(t time.Time) string { return t.Format("2006-01-02") },
	"dec":  func(i int) int { return i - 1 },
}).Parse(pageTemplate))

func pctText(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*x)
}

// Panel sizes of a small multiple, in SVG user units.
const (
	panelW, panelH = 280.0, 150.0
	padL, padR     = 34.0, 10.0
	padT, padB     = 8.0, 22.0
)

// view is what the template shows.
type view struct {
	Generated time.Time
	Nights    []night
	Series    []panel
	Gate      []string
	Notes     []string
	Alpha     float64
}

type night struct {
	Row
	Link string
}

// panel is one series drawn: the CI band as a polygon, the line, the points.
type panel struct {
	*Series
	Band, Line     string
	Dots           []dot
	YTicks         []tick
	XFirst, XLast  string
	Latest         Row
	Prev, Best     *mark
	W, H, X0, X1   float64
	Y0, Y1         float64
	SpecChanged    bool
	SpecChangeNote string
}

type dot struct {
	X, Y   float64
	Title  string
	Hollow bool // the sampler's spec differs from the night before
}

type tick struct {
	Y     float64
	Label string
}

// mark is a Change as the page shows it.
type mark struct {
	*Change
	Class, Symbol string
}

func markOf(c *Change) *mark {
	if c == nil {
		return nil
	}
	m := &mark{Change: c}
	switch {
	case c.Significant && c.Row.Delta < 0:
		m.Class, m.Symbol = "drop", "▼"
	case c.Significant && c.Row.Delta > 0:
		m.Class, m.Symbol = "gain", "▲"
	}
	return m
}

// WriteHTML writes out/history.html: self-contained (inline CSS and SVG, no
// script), links to each night's report relative to out.
func (h *History) WriteHTML(out string, alpha float64, now time.Time) error {
	v := view{Generated: now.UTC(), Gate: h.Regressions, Notes: h.Notes, Alpha: alpha}
	seen := map[string]bool{}
	for _, r := range h.Rows {
		k := r.RunKey + "\x00" + r.Task
		if seen[k] {
			continue
		}
		seen[k] = true
		link, err := filepath.Rel(out, r.Report)
		if err != nil {
			link = r.Report
		}
		v.Nights = append(v.Nights, night{Row: r, Link: filepath.ToSlash(link)})
	}
	for _, s := range h.Series {
		v.Series = append(v.Series, drawPanel(s))
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return fmt.Errorf("history.html: %w", err)
	}
	return reports.WriteFileAtomic(filepath.Join(out, HTMLFile), func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err })
}

func drawPanel(s *Series) panel {
	p := panel{Series: s, W: panelW, H: panelH, X0: padL, X1: panelW - padR, Y0: padT, Y1: panelH - padB,
		Latest: s.Points[len(s.Points)-1], Prev: markOf(s.Previous), Best: markOf(s.Best)}
	lo, hi := s.span()
	if !(hi > lo) {
		lo, hi = lo-0.05, hi+0.05
	}
	pad := (hi - lo) * 0.1
	lo, hi = max(0, lo-pad), min(1, hi+pad)
	if !(hi > lo) {
		lo, hi = 0, 1
	}
	n := len(s.Points)
	x := func(i int) float64 {
		if n == 1 {
			return (p.X0 + p.X1) / 2
		}
		return p.X0 + (p.X1-p.X0)*float64(i)/float64(n-1)
	}
	y := func(v float64) float64 { return p.Y1 - (p.Y1-p.Y0)*(v-lo)/(hi-lo) }
	var upper, lower, line []string
	for i, r := range s.Points {
		ciLo, ciHi := r.CILow, r.CIHigh
		if math.IsNaN(ciLo) || math.IsNaN(ciHi) {
			ciLo, ciHi = r.Accuracy, r.Accuracy
		}
		upper = append(upper, fmt.Sprintf("%.1f,%.1f", x(i), y(ciHi)))
		lower = append([]string{fmt.Sprintf("%.1f,%.1f", x(i), y(ciLo))}, lower...)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x(i), y(r.Accuracy)))
		d := dot{X: x(i), Y: y(r.Accuracy), Title: fmt.Sprintf("%s: %s%% [%s, %s], n = %d", r.Date.Format("2006-01-02"),
			pctText(r.Accuracy), pctText(r.CILow), pctText(r.CIHigh), r.N)}
		if i > 0 && r.SamplerSpec != s.Points[i-1].SamplerSpec {
			d.Hollow = true
			d.Title += " (sampler spec changed)"
			p.SpecChanged = true
		}
		p.Dots = append(p.Dots, d)
	}
	p.Band = strings.Join(append(upper, lower...), " ")
	p.Line = strings.Join(line, " ")
	for _, v := range []float64{lo, (lo + hi) / 2, hi} {
		p.YTicks = append(p.YTicks, tick{Y: y(v), Label: fmt.Sprintf("%.0f", 100*v)})
	}
	p.XFirst, p.XLast = s.Points[0].Date.Format("01-02"), s.Points[n-1].Date.Format("01-02")
	return p
}
