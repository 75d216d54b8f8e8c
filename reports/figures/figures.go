// Package figures draws a report's figures with gonum/plot: the entropy ×
// varentropy density of a sampler's tokens with its Entropix thresholds, the
// mean entropy along the generation for correct and wrong answers, and the
// accuracy of every sampler with its 95% interval. Each figure is written as SVG
// (for the HTML page and the web) and PDF (for LaTeX).
package figures

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// Size is a figure's size on paper. Fonts are set in points whatever the size
// (8 pt titles and labels, 7 pt ticks and legends), so a figure pasted at 100%
// reads like the paper's own small print.
type Size struct {
	Name          string
	Width, Height vg.Length
}

// The size presets: one column and the full width of a two-column paper.
var (
	OneColumn = Size{Name: "one-column", Width: 3.3 * vg.Inch, Height: 2.4 * vg.Inch}
	TwoColumn = Size{Name: "two-column", Width: 6.8 * vg.Inch, Height: 3.2 * vg.Inch}
)

// SizeNamed returns the preset called name.
func SizeNamed(name string) (Size, error) {
	for _, s := range []Size{OneColumn, TwoColumn} {
		if s.Name == name {
			return s, nil
		}
	}
	return Size{}, fmt.Errorf("figure size %q: want one-column (3.3 in) or two-column (6.8 in)", name)
}

// Font sizes of every figure, in points.
const (
	titlePt  = 8
	labelPt  = 8
	tickPt   = 7
	legendPt = 7
)

// setFonts applies the figure font sizes to p.
func setFonts(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = titlePt
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = labelPt
		ax.Tick.Label.Font.Size = tickPt
	}
	p.Legend.TextStyle.Font.Size = legendPt
	p.Legend.ThumbnailWidth = vg.Points(12)
}

// drawFigure draws p onto c with its legend beside the data, in a column on
// the right, never over it.
func drawFigure(p *plot.Plot, c draw.Canvas) {
	setFonts(p)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	leg := p.Legend
	r := leg.Rectangle(c)
	w := r.Max.X - r.Min.X
	if w <= 0 {
		p.Draw(c)
		return
	}
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	gap := vg.Points(4)
	p.Draw(draw.Crop(c, 0, -(w + gap), 0, 0))
	leg.Left, leg.Top, leg.XOffs, leg.YOffs = true, true, 0, 0
	top := vg.Points(titlePt * 1.6) // below the title line
	leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-w, 0, 0, -top))
}

// Colours shared by the figures (Okabe–Ito, readable with colour blindness).
var (
	blue   = color.RGBA{0, 114, 178, 255}
	orange = color.RGBA{213, 94, 0, 255}
	grey   = color.RGBA{90, 90, 90, 255}
	purple = color.RGBA{204, 121, 167, 255}
)

// Density draws sampler d's tokens on entropy × varentropy axes, coloured by
// log10(1 + tokens per cell), with the sampler's thresholds as dashed lines.
func Density(d model.Density) (p *plot.Plot, err error) {
	defer recoverPlot(&err, "density of "+d.Sampler)
	if d.Tokens == 0 || d.NX == 0 || d.NY == 0 || len(d.Counts) != d.NX*d.NY {
		return nil, fmt.Errorf("density of %s: no tokens", d.Sampler)
	}
	p = plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d tokens", d.Sampler, d.Tokens)
	p.X.Label.Text = "entropy (bits)"
	p.Y.Label.Text = "varentropy (bits²)"
	pal, err := brewer.GetPalette(brewer.TypeSequential, "YlGnBu", 9)
	if err != nil {
		return nil, err
	}
	scale := newColourScale(grid{d: d}, pal.Colors())
	if d.CountMax > 0 { // the report's shared scale: equal colours mean equal counts
		scale.min, scale.max = math.Log10(2), max(math.Log10(1+float64(d.CountMax)), math.Log10(2)+1e-9)
	}
	// Cells are vector rectangles (runs of equal colour merged), the same in
	// SVG and PDF. Raster images are avoided: gonum's rasterised heat map is a
	// 16-bit image that vgpdf embeds with a 16-bit header over 8-bit samples (a
	// corrupt image), vgpdf draws images upside down, and vgsvg labels PNG data
	// image/jpg.
	p.Add(cells{g: grid{d: d}, scale: scale})
	addColourKey(p, scale, d)
	if t := d.Thresholds; t != nil {
		for _, l := range t.Entropy {
			if err := addLine(p, plotter.XYs{{X: l.Value, Y: 0}, {X: l.Value, Y: d.VarentMax}}, orange, true); err != nil {
				return nil, err
			}
		}
		for _, l := range t.Varentropy {
			if err := addLine(p, plotter.XYs{{X: 0, Y: l.Value}, {X: d.EntropyMax, Y: l.Value}}, purple, true); err != nil {
				return nil, err
			}
		}
		if len(t.Entropy) > 0 {
			p.Legend.Add("entropy thr. "+levels(t.Entropy), lineThumb(orange))
		}
		if len(t.Varentropy) > 0 {
			p.Legend.Add("varentropy thr. "+levels(t.Varentropy), lineThumb(purple))
		}
	}
	p.X.Min, p.X.Max = 0, d.EntropyMax
	p.Y.Min, p.Y.Max = 0, d.VarentMax
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	return p, nil
}

// addColourKey adds legend swatches for 1, 10, 100, ... tokens per cell, the
// density's colour scale (gonum/plot has no colour bar).
func addColourKey(p *plot.Plot, scale colourScale, d model.Density) {
	var top uint32
	for _, n := range d.Counts {
		top = max(top, n)
	}
	if d.CountMax > 0 {
		top = d.CountMax
	}
	for n := uint32(1); n <= top; n *= 10 {
		label := fmt.Sprintf("%d tokens/cell", n)
		if n == 1 {
			label = "1 token/cell"
		}
		p.Legend.Add(label, swatch{scale.colour(math.Log10(1 + float64(n)))})
		if n > math.MaxUint32/10 {
			break
		}
	}
}

// colourScale maps a cell's value linearly onto a palette between the
// smallest and largest value present.
type colourScale struct {
	pal      []color.Color
	min, max float64
}

func newColourScale(g grid, pal []color.Color) colourScale {
	s := colourScale{pal: pal, min: math.Inf(1), max: math.Inf(-1)}
	nx, ny := g.Dims()
	for r := range ny {
		for c := range nx {
			if z := g.Z(c, r); !math.IsNaN(z) {
				s.min, s.max = min(s.min, z), max(s.max, z)
			}
		}
	}
	if !(s.max > s.min) {
		s.max = s.min + 1
	}
	return s
}

func (s colourScale) colour(z float64) color.Color {
	i := int((z-s.min)*float64(len(s.pal)-1)/(s.max-s.min) + 0.5)
	return s.pal[max(0, min(len(s.pal)-1, i))]
}

// cells draws a density grid as filled rectangles; runs of equal colour along a
// row are merged into one rectangle, so a 60 × 60 grid stays small.
type cells struct {
	g     grid
	scale colourScale
}

func (c cells) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	nx, ny := c.g.Dims()
	w, h := c.g.d.EntropyMax/float64(nx), c.g.d.VarentMax/float64(ny)
	for r := range ny {
		for i := 0; i < nx; {
			z := c.g.Z(i, r)
			if math.IsNaN(z) {
				i++
				continue
			}
			col := c.scale.colour(z)
			j := i + 1
			for j < nx && !math.IsNaN(c.g.Z(j, r)) && c.scale.colour(c.g.Z(j, r)) == col {
				j++
			}
			x0, x1 := trX(float64(i)*w), trX(float64(j)*w)
			y0, y1 := trY(float64(r)*h), trY(float64(r+1)*h)
			dc.FillPolygon(col, dc.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}))
			i = j
		}
	}
}

// swatch is a filled legend square.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.c, c.ClipPolygonY(pts))
}

// grid adapts a density to plotter.GridXYZ; empty cells are NaN (not drawn).
type grid struct{ d model.Density }

func (g grid) Dims() (int, int) { return g.d.NX, g.d.NY }
func (g grid) X(c int) float64  { return (float64(c) + 0.5) * g.d.EntropyMax / float64(g.d.NX) }
func (g grid) Y(r int) float64  { return (float64(r) + 0.5) * g.d.VarentMax / float64(g.d.NY) }
func (g grid) Z(c, r int) float64 {
	n := g.d.Counts[r*g.d.NX+c]
	if n == 0 {
		return math.NaN()
	}
	return math.Log10(1 + float64(n))
}

func levels(ls []model.Level) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%g", l.Value)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// EntropyCurves draws the mean entropy at each generation step for responses
// that ended correct and wrong.
func EntropyCurves(c model.EntropyCurve) (p *plot.Plot, err error) {
	defer recoverPlot(&err, "entropy curve of "+c.Sampler)
	if len(c.Correct)+len(c.Wrong) == 0 {
		return nil, fmt.Errorf("entropy curve of %s: no tokens", c.Sampler)
	}
	p = plot.New()
	p.Title.Text = c.Sampler
	p.X.Label.Text = "generation step (token)"
	p.Y.Label.Text = "mean entropy (bits)"
	p.Y.Min = 0
	if c.YMax > 0 { // the report's shared axis: curves of all samplers compare
		p.Y.Max = c.YMax * 1.05
	}
	for _, s := range []struct {
		name string
		pts  []model.CurvePoint
		col  color.Color
	}{{"correct", c.Correct, blue}, {"wrong", c.Wrong, orange}} {
		if len(s.pts) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(s.pts))
		for i, pt := range s.pts {
			xys[i] = plotter.XY{X: float64(pt.Step), Y: pt.Mean}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = s.col, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	p.Add(plotter.NewGrid())
	return p, nil
}

// plainTicks are gonum's default tick positions labelled without trailing
// zeros: steps read 0, 25, 50, not 0.00, 25.00.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
		}
	}
	return ticks
}

// Accuracy draws each sampler's accuracy under filter index fi as a bar with
// its 95% interval over problems (the Wilson interval the accuracy table prints).
func Accuracy(samplers []model.Sampler, fi int) (p *plot.Plot, err error) {
	defer recoverPlot(&err, "accuracy")
	if len(samplers) == 0 {
		return nil, fmt.Errorf("accuracy: no samplers")
	}
	var vals plotter.Values
	var bars errorBars
	var names []string
	for i, s := range samplers {
		if fi >= len(s.Filters) {
			return nil, fmt.Errorf("accuracy: sampler %s has no filter %d", s.Label, fi)
		}
		f := s.Filters[fi]
		vals = append(vals, 100*f.Mean)
		bars.xys = append(bars.xys, plotter.XY{X: float64(i), Y: 100 * f.Mean})
		bars.low = append(bars.low, 100*(f.Mean-f.CILow))
		bars.high = append(bars.high, 100*(f.CIHigh-f.Mean))
		names = append(names, s.Label)
	}
	p = plot.New()
	p.Title.Text = "accuracy (" + samplers[0].Filters[fi].Filter + ", 95% CI over problems)"
	p.Y.Label.Text = "accuracy (%)"
	p.Y.Min = 0
	p.Y.Tick.Marker = plainTicks{}
	bc, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bc.Color, bc.LineStyle.Width = blue, 0
	eb, err := plotter.NewYErrorBars(bars)
	if err != nil {
		return nil, err
	}
	// Black intervals over the Okabe–Ito blue bars: full contrast.
	eb.LineStyle.Color, eb.LineStyle.Width = color.Black, vg.Points(1.2)
	p.Add(plotter.NewGrid(), bc, eb)
	// Accuracy lives in 0–100%: with every bar at 0 the plot would otherwise
	// pad its empty range to −1…1.
	p.Y.Min, p.Y.Max = 0, min(100, max(p.Y.Max, 5))
	p.NominalX(names...)
	// Sampler labels such as min_p(min_p=0.1,temperature=1) overlap when
	// horizontal: slant them when any is long.
	for _, n := range names {
		if len(n) > 10 {
			p.X.Tick.Label.Rotation = math.Pi / 9
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
			break
		}
	}
	return p, nil
}

type errorBars struct {
	xys       plotter.XYs
	low, high []float64
}

func (e errorBars) Len() int                        { return len(e.xys) }
func (e errorBars) XY(i int) (float64, float64)     { return e.xys[i].X, e.xys[i].Y }
func (e errorBars) YError(i int) (float64, float64) { return e.low[i], e.high[i] }

func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, dashed bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width = c, vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	return nil
}

func lineThumb(c color.Color) plot.Thumbnailer {
	return &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
}

// recoverPlot turns a panic inside gonum/plot (it panics on some degenerate
// inputs) into an error.
func recoverPlot(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: plotting failed: %v", what, r)
	}
}
