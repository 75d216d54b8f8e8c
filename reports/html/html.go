// Package html renders report.html: one self-contained, offline file (CSS,
// JavaScript, figures and data inlined; no network) that opens from disk.
//
// Model output is untrusted. Every string reaches the page through
// html/template, which escapes it for its context, or through the JSON data
// blocks, which the page's script writes with textContent only.
package html

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

//go:embed report.tmpl
var pageTemplate string

//go:embed report.css
var pageCSS string

//go:embed report.js
var pageJS string

// Figure is one SVG figure of the page.
type Figure struct {
	Title string
	SVG   []byte
}

// Figures are the page's figures, made by package figures.
type Figures struct {
	Forest   *Figure
	Accuracy *Figure
	Density  []Figure
	Curves   []Figure
}

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": pct,
	// A corpus metric's difference from the baseline, on its own scale.
	"signedNum3": func(x float64) string {
		if x > 0 {
			return "+" + num3(x)
		}
		return num3(x)
	},
	// A corpus-aggregated score: a fraction in percent, a corpus metric
	// (bleu, chrf, ter) on its own 0–100 scale.
	"aggregated": func(x float64, points bool) string {
		if points {
			return num3(x)
		}
		return pct(x)
	},
	// The same formatting as the headline sentences, compare and the terminal.
	"pp":           reports.SignedPP,
	"pvalue":       reports.FormatP,
	"num":          num,
	"svgURL":       svgURL,
	"filter":       func(f reports.Filter) string { return string(f) },
	"sigHolm":      func(r reports.ComparisonRow) bool { return r.PHolm.Valid && r.PHolm.V < 0.05 },
	"notNaN":       func(x float64) bool { return !math.IsNaN(x) },
	"sensitivity":  reports.SensitivityNote,
	"seedList":     seedList,
	"tokenMetrics": func() []string { return model.TokenMetrics[:] },
	"num3":         num3,
	"pctWidth":     func(share float64) float64 { return 120 * max(0, min(1, share)) },
}).Parse(pageTemplate))

// page is what the template sees.
type page struct {
	R         *model.Report
	Figures   Figures
	CSS       template.CSS
	JS        template.JS
	Problems  template.JS
	Tokens    template.JS
	MultiSeed bool
}

// Render writes report.html for r.
func Render(w io.Writer, r *model.Report, figs Figures) error {
	problems, tokens, err := encodeBrowser(r)
	if err != nil {
		return fmt.Errorf("report.html: encode problems: %w", err)
	}
	p := page{
		R: r, Figures: figs,
		// Trusted: our own embedded files, and JSON whose encoder escapes <, >
		// and & (see data.go), so nothing inside can end the <script> element.
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS),
		Problems: template.JS(problems), Tokens: template.JS(tokens),
	}
	for _, s := range r.Samplers {
		p.MultiSeed = p.MultiSeed || len(s.Seeds) > 1
	}
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	return nil
}

func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*x)
}

func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.1f", x)
}

// num3 shows a metric with three decimals, or three significant digits when it
// is smaller than 0.01 (an agreement of 1.2e-4 is not "0.000").
func num3(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "–"
	case x != 0 && math.Abs(x) < 0.01:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	return fmt.Sprintf("%.3f", x)
}

// svgURL embeds an SVG as a data: URL for <img>: an image cannot run script,
// so even a label with markup inside a figure stays inert.
func svgURL(svg []byte) template.URL {
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg))
}

func seedList(seeds []int64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}
