package figures

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/entropix-eval/entropix-eval/reports"
)

// Forest draws each sampler's paired difference from the baseline under one
// filter as a point with its 95% CI, on a shared axis with a line at zero: the
// page's first figure.
func Forest(rows []reports.ComparisonRow, filter string) (p *plot.Plot, err error) {
	defer recoverPlot(&err, "forest plot")
	var pts plotter.XYs
	var bars errorBars
	var names []string
	for _, r := range rows {
		if r.Filter != filter || math.IsNaN(r.Delta) {
			continue
		}
		y := float64(len(pts)) // flipped below, so the first row is on top
		pts = append(pts, plotter.XY{X: 100 * r.Delta, Y: y})
		lo, hi := r.CILow, r.CIHigh
		if math.IsNaN(lo) || math.IsNaN(hi) {
			lo, hi = r.Delta, r.Delta
		}
		bars.xys = append(bars.xys, plotter.XY{X: 100 * r.Delta, Y: y})
		bars.low = append(bars.low, 100*(r.Delta-lo))
		bars.high = append(bars.high, 100*(hi-r.Delta))
		names = append(names, r.Sampler)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("forest plot: no comparison under %s", filter)
	}
	for i := range pts {
		pts[i].Y = float64(len(pts)-1) - pts[i].Y
		bars.xys[i].Y = pts[i].Y
	}
	p = plot.New()
	p.Title.Text = "difference from " + rows[0].Baseline + " (" + filter + ", 95% CI)"
	p.X.Label.Text = "accuracy difference (pp)"
	eb, err := plotter.NewXErrorBars(xErrorBars(bars))
	if err != nil {
		return nil, err
	}
	eb.LineStyle.Color, eb.LineStyle.Width = blue, vg.Points(1.5)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = blue, draw.CircleGlyph{}, vg.Points(3)
	p.Add(plotter.NewGrid(), eb, sc)
	lo, hi := 0.0, 0.0
	for i := range bars.xys {
		lo = min(lo, bars.xys[i].X-bars.low[i])
		hi = max(hi, bars.xys[i].X+bars.high[i])
	}
	pad := max(0.5, 0.08*(hi-lo))
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if err := addLine(p, plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(len(pts)) - 0.5}}, grey, true); err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = -0.5, float64(len(pts))-0.5
	slices.Reverse(names) // the first sampler on top, as in the headline list
	p.NominalY(names...)
	p.X.Tick.Marker = plainTicks{}
	return p, nil
}

type xErrorBars errorBars

func (e xErrorBars) Len() int                        { return len(e.xys) }
func (e xErrorBars) XY(i int) (float64, float64)     { return e.xys[i].X, e.xys[i].Y }
func (e xErrorBars) XError(i int) (float64, float64) { return e.low[i], e.high[i] }
