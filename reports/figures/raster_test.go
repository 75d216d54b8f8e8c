package figures

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
)

// allFigures draws one of every figure the report makes.
func allFigures(t *testing.T) map[string]*plot.Plot {
	t.Helper()
	acc := func(a float64) []model.FilterAccuracy {
		return []model.FilterAccuracy{{Filter: "strict", ClusteredAccuracy: reports.ClusteredAccuracy{Mean: a, CILow: a - 0.1, CIHigh: a + 0.05}}}
	}
	out := map[string]*plot.Plot{}
	var err error
	out["density"], err = Density(density())
	require.NoError(t, err)
	out["curves"], err = EntropyCurves(model.EntropyCurve{Sampler: "greedy", YMax: 3,
		Correct: []model.CurvePoint{{Step: 0, Mean: 0.5, N: 9}, {Step: 1, Mean: 0.7, N: 9}}, Wrong: []model.CurvePoint{{Step: 0, Mean: 2, N: 9}, {Step: 1, Mean: 1.5, N: 9}}})
	require.NoError(t, err)
	out["accuracy"], err = Accuracy([]model.Sampler{{Label: "greedy", Filters: acc(0.3)}, {Label: "min_p", Filters: acc(0.6)}}, 0)
	require.NoError(t, err)
	out["forest"], err = Forest([]reports.ComparisonRow{
		{Sampler: "entropix", Baseline: "greedy", Filter: "strict", Delta: 0.021, CILow: 0.001, CIHigh: 0.040},
		{Sampler: "min_p", Baseline: "greedy", Filter: "strict", Delta: -0.01, CILow: -0.03, CIHigh: 0.01},
	}, "strict")
	require.NoError(t, err)
	return out
}

func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") != "" || os.Getenv("ENTROPIX_REQUIRE_TEX") != "" {
		t.Fatalf("no %s: apt-get install -y %s", name, pkg)
	}
	t.Skipf("no %s (apt-get install -y %s)", name, pkg)
	return ""
}

func run(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v:\n%s", bin, args, out)
	return string(out)
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// gray is a pixel's luminance over a white background, 0..255.
func gray(c color.Color) float64 {
	r, g, b, a := c.RGBA()
	over := func(v uint32) float64 { return float64(v)/257 + 255*(1-float64(a)/65535) }
	return 0.299*over(r) + 0.587*over(g) + 0.114*over(b)
}

// The PDF and the SVG of every figure show the same thing: rasterised at the
// same resolution (pdftoppm, rsvg-convert) their pixels agree except where the
// two renderers anti-alias text and edges differently.
func TestPDFAndSVGRasteriseAlike(t *testing.T) {
	pdftoppm := tool(t, "pdftoppm", "poppler-utils")
	rsvg := tool(t, "rsvg-convert", "librsvg2-bin")
	for name, p := range allFigures(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Save(p, dir, name, OneColumn)
			require.NoError(t, err)
			run(t, dir, pdftoppm, "-r", "100", "-png", "-singlefile", name+".pdf", "pdf")
			run(t, dir, rsvg, "-d", "100", "-p", "100", "-b", "white", "-o", "svg.png", name+".svg")
			a, b := readPNG(t, filepath.Join(dir, "pdf.png")), readPNG(t, filepath.Join(dir, "svg.png"))
			w := min(a.Bounds().Dx(), b.Bounds().Dx())
			h := min(a.Bounds().Dy(), b.Bounds().Dy())
			assert.InDelta(t, 330, w, 2, "3.3 in at 100 dpi")
			var sum float64
			far := 0
			for y := range h {
				for x := range w {
					d := gray(a.At(a.Bounds().Min.X+x, a.Bounds().Min.Y+y)) - gray(b.At(b.Bounds().Min.X+x, b.Bounds().Min.Y+y))
					if d < 0 {
						d = -d
					}
					sum += d
					if d > 96 {
						far++
					}
				}
			}
			mean := sum / float64(w*h)
			assert.Less(t, mean, 6.0, "mean luminance difference")
			assert.Less(t, float64(far)/float64(w*h), 0.03, "share of pixels that differ strongly")
		})
	}
}

// pdftotext finds the same words in the PDF as the SVG's text elements hold,
// "bits²" included.
func TestPDFTextMatchesSVG(t *testing.T) {
	pdftotext := tool(t, "pdftotext", "poppler-utils")
	svgText := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
	for name, p := range allFigures(t) {
		dir := t.TempDir()
		svg, err := Save(p, dir, name, OneColumn)
		require.NoError(t, err)
		pdfText := run(t, dir, pdftotext, name+".pdf", "-")
		words := strings.Fields(pdfText)
		for _, m := range svgText.FindAllSubmatch(svg, -1) {
			for _, w := range strings.Fields(htmlUnescape(string(m[1]))) {
				assert.Contains(t, words, w, "%s: %q is in the SVG but not the PDF", name, w)
			}
		}
		if name == "density" {
			assert.Contains(t, pdfText, "varentropy (bits²)")
		}
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`, "&amp;", "&").Replace(s)
}

// Every text of every figure is at least 7 pt at either size preset.
func TestFontsAtLeastSevenPoints(t *testing.T) {
	size := regexp.MustCompile(`font-size:([0-9.]+)px`)
	for _, sz := range []Size{OneColumn, TwoColumn} {
		for name, p := range allFigures(t) {
			svg, err := SVG(p, sz)
			require.NoError(t, err)
			ms := size.FindAllSubmatch(svg, -1)
			require.NotEmpty(t, ms, name)
			for _, m := range ms {
				pt, err := strconv.ParseFloat(string(m[1]), 64)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, pt, 7.0, "%s at %s", name, sz.Name)
			}
			m := regexp.MustCompile(`<svg width="([0-9.]+)pt"`).FindSubmatch(svg)
			require.NotNil(t, m, name)
			w, err := strconv.ParseFloat(string(m[1]), 64)
			require.NoError(t, err)
			assert.InDelta(t, sz.Width.Points(), w, 0.01, "%s: width of %s", name, sz.Name)
		}
	}
	_, err := SizeNamed("poster")
	assert.Error(t, err)
}
