package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// familyColours are Okabe–Ito's, readable with colour blindness, one per
// sampler family in the order the sweep lists them (cycling past seven).
var familyColours = []color.Color{blue, orange, color.RGBA{0, 158, 115, 255}, purple,
	color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255}, color.RGBA{240, 228, 66, 255}}

// AccuracyVsTemperature draws one model × task of a sweep as the min-p paper
// does: per sampler family, accuracy against temperature with each point's
// 95% interval over problems (the run report's), joined by a line; a sampler
// without a temperature (greedy) is a dashed horizontal line at its accuracy.
func AccuracyVsTemperature(run model.SweepRun) (p *plot.Plot, err error) {
	defer recoverPlot(&err, "accuracy vs temperature")
	var families []string
	byFamily := map[string][]model.SweepSampler{}
	var flat []model.SweepSampler
	for _, s := range run.Samplers {
		if math.IsNaN(s.Temperature) {
			flat = append(flat, s)
			continue
		}
		if _, ok := byFamily[s.Family]; !ok {
			families = append(families, s.Family)
		}
		byFamily[s.Family] = append(byFamily[s.Family], s)
	}
	if len(families) == 0 {
		return nil, fmt.Errorf("accuracy vs temperature of %s on %s: no sampler has a temperature", run.Model, run.Task)
	}
	p = plot.New()
	p.Title.Text = run.Model + ", " + run.Task
	p.X.Label.Text = "temperature"
	p.Y.Label.Text = "accuracy (%), " + run.PrimaryFilter + ", 95% CI"
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	xMin, xMax := math.Inf(1), math.Inf(-1)
	for i, f := range families {
		ss := slices.Clone(byFamily[f])
		slices.SortStableFunc(ss, func(a, b model.SweepSampler) int { return cmp.Compare(a.Temperature, b.Temperature) })
		c := familyColours[i%len(familyColours)]
		var pts plotter.XYs
		var bars errorBars
		for _, s := range ss {
			a := s.Accuracy
			pt := plotter.XY{X: s.Temperature, Y: 100 * a.Mean}
			pts = append(pts, pt)
			lo, hi := a.CILow, a.CIHigh
			if math.IsNaN(lo) || math.IsNaN(hi) {
				lo, hi = a.Mean, a.Mean
			}
			bars.xys = append(bars.xys, pt)
			bars.low = append(bars.low, 100*(a.Mean-lo))
			bars.high = append(bars.high, 100*(hi-a.Mean))
			xMin, xMax = min(xMin, s.Temperature), max(xMax, s.Temperature)
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = c, vg.Points(1.2)
		sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, vg.Points(2)
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color, eb.LineStyle.Width = c, vg.Points(1)
		p.Add(l, sc, eb)
		p.Legend.Add(f, l, sc)
	}
	if xMin == xMax {
		xMin, xMax = xMin-0.5, xMax+0.5
	}
	top := 0.0
	for _, s := range run.Samplers {
		top = max(top, s.Accuracy.Mean, s.Accuracy.CIHigh)
	}
	p.Y.Max = min(100, 100*top*1.05+1) // the axis stays within 0–100%
	for i, s := range flat {
		var c color.Color = grey
		if i > 0 {
			c = familyColours[(len(families)+i-1)%len(familyColours)]
		}
		y := 100 * s.Accuracy.Mean
		if err := addLine(p, plotter.XYs{{X: xMin, Y: y}, {X: xMax, Y: y}}, c, true); err != nil {
			return nil, err
		}
		p.Legend.Add(s.Label, lineThumb(c))
	}
	return p, nil
}
