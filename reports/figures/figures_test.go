package figures

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func density() model.Density {
	d := model.Density{Sampler: `entropix <b>"x"</b>`, NX: 3, NY: 2, EntropyMax: 6, VarentMax: 8, Counts: []uint32{5, 0, 1, 0, 9, 100}, Tokens: 115,
		Thresholds: &model.Thresholds{Entropy: []model.Level{{Name: "low", Value: 0.1}, {Name: "high", Value: 5}}, Varentropy: []model.Level{{Name: "medium", Value: 5}}}}
	return d
}

func TestFiguresRender(t *testing.T) {
	acc := func(a float64) []model.FilterAccuracy {
		return []model.FilterAccuracy{{Filter: "strict", ClusteredAccuracy: reports.ClusteredAccuracy{Mean: a, CILow: a - 0.1, CIHigh: a + 0.05}}}
	}
	curve := model.EntropyCurve{Sampler: "greedy", Correct: []model.CurvePoint{{Step: 0, Mean: 0.5, N: 9}, {Step: 1, Mean: 0.7, N: 9}}, Wrong: []model.CurvePoint{{Step: 0, Mean: 2, N: 9}}}
	dir := t.TempDir()
	for name, draw := range map[string]func() (any, error){
		"density": func() (any, error) { return Density(density()) },
		"curves":  func() (any, error) { return EntropyCurves(curve) },
		"accuracy": func() (any, error) {
			return Accuracy([]model.Sampler{{Label: "greedy", Filters: acc(0.3)}, {Label: "min_p", Filters: acc(0.6)}}, 0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := draw()
			require.NoError(t, err)
			require.NotNil(t, p)
		})
	}
	p, err := Density(density())
	require.NoError(t, err)
	svg, err := Save(p, dir, "density", OneColumn)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || bytes.Contains(svg[:200], []byte("<svg")))
	assert.NotContains(t, string(svg), `<b>"x"</b>`, "titles are escaped inside the SVG")
	pdf, err := os.ReadFile(filepath.Join(dir, "density.pdf"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
	st, err := os.Stat(filepath.Join(dir, "density.svg"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

func TestFiguresRejectDegenerateInput(t *testing.T) {
	d := density()
	d.Counts = d.Counts[:2]
	_, err := Density(d)
	assert.Error(t, err, "counts do not match the grid")
	_, err = Density(model.Density{Sampler: "empty"})
	assert.ErrorContains(t, err, "no tokens")
	_, err = EntropyCurves(model.EntropyCurve{Sampler: "none"})
	assert.ErrorContains(t, err, "no tokens")
	_, err = Accuracy(nil, 0)
	assert.Error(t, err)
	_, err = Accuracy([]model.Sampler{{Label: "x"}}, 0)
	assert.ErrorContains(t, err, "no filter")

	// A single-cell density (min = max) and NaN accuracies still draw.
	one := model.Density{Sampler: "one", NX: 1, NY: 1, EntropyMax: 1, VarentMax: 1, Counts: []uint32{7}, Tokens: 7}
	p, err := Density(one)
	require.NoError(t, err)
	_, err = SVG(p, OneColumn)
	assert.NoError(t, err)
	_, err = Accuracy([]model.Sampler{{Label: "x", Filters: []model.FilterAccuracy{{ClusteredAccuracy: reports.ClusteredAccuracy{Mean: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}}}}}, 0)
	assert.Error(t, err, "NaN bars are refused, not drawn wrong")
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"greedy": "greedy", "min_p(min_p=0.1,temperature=1)": "min_p_min_p_0.1_temperature_1",
		"../../etc/passwd": "etc_passwd", "": "sampler", "日本": "sampler",
	} {
		assert.Equal(t, want, Slug(in), in)
	}
}

// The forest plot lists samplers top to bottom in the report's order.
func TestForestOrder(t *testing.T) {
	p, err := Forest([]reports.ComparisonRow{
		{Sampler: "first", Baseline: "greedy", Filter: "strict", Delta: 0.02, CILow: 0, CIHigh: 0.04},
		{Sampler: "second", Baseline: "greedy", Filter: "strict", Delta: -0.01, CILow: -0.03, CIHigh: 0.01},
		{Sampler: "other-filter", Baseline: "greedy", Filter: "flexible", Delta: 0.5, CILow: 0.4, CIHigh: 0.6},
	}, "strict")
	require.NoError(t, err)
	svg, err := SVG(p, OneColumn)
	require.NoError(t, err)
	height := func(label string) float64 {
		m := regexp.MustCompile(`y="(-?[0-9.]+)"[^>]*>` + label + `<`).FindSubmatch(svg)
		require.NotNil(t, m, label)
		y, err := strconv.ParseFloat(string(m[1]), 64)
		require.NoError(t, err)
		return -y // vgsvg flips y: -y is the height above the bottom
	}
	assert.Greater(t, height("first"), height("second"))
	assert.NotContains(t, string(svg), "other-filter", "one filter per forest plot")
	_, err = Forest(nil, "strict")
	assert.Error(t, err)
}

// Accuracy's axis stays within 0–100%: all-zero bars get 0–5%, not −1…1%.
func TestAccuracyAxisWithinPercentRange(t *testing.T) {
	zero := []model.FilterAccuracy{{Filter: "exact_match,strict-match", ClusteredAccuracy: reports.ClusteredAccuracy{Mean: 0, CILow: 0, CIHigh: 0}}}
	p, err := Accuracy([]model.Sampler{{Label: "greedy", Filters: zero}, {Label: "min_p", Filters: zero}}, 0)
	require.NoError(t, err)
	assert.Equal(t, 0.0, p.Y.Min)
	assert.Equal(t, 5.0, p.Y.Max)
	full := []model.FilterAccuracy{{Filter: "f", ClusteredAccuracy: reports.ClusteredAccuracy{Mean: 1, CILow: 0.9, CIHigh: 1}}}
	p, err = Accuracy([]model.Sampler{{Label: "greedy", Filters: full}}, 0)
	require.NoError(t, err)
	assert.Equal(t, 100.0, p.Y.Max)
}
