package runreport

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
)

// TestOneSetOfNumbers: comparisons.arrow, compare --json's encoding, the
// page's headline and the LaTeX table carry the same interval and p for a
// row, and the interval excludes 0 exactly when p < 0.05.
func TestOneSetOfNumbers(t *testing.T) {
	dir := writeRun(t, taskManifest("gsm8k", "x", "greedy"), concat(
		scored("greedy", 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		scored("x", 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0),
	), nil)
	rep, err := Build(dir, Options{})
	require.NoError(t, err)
	rows, err := reports.ReadComparisons(filepath.Join(dir, ComparisonsFile))
	require.NoError(t, err)
	require.Equal(t, len(rep.Comparisons), len(rows))
	r := rows[0]
	require.True(t, r.Primary)
	assert.Equal(t, r.P < 0.05, r.CILow > 0 || r.CIHigh < 0)

	b, err := reports.MarshalComparisonsJSON(rows)
	require.NoError(t, err)
	var js []map[string]any
	require.NoError(t, json.Unmarshal(b, &js))
	assert.Equal(t, r.CILow, js[0]["ci_low"])
	assert.Equal(t, r.CIHigh, js[0]["ci_high"])
	assert.Equal(t, r.P, js[0]["p"])

	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	require.NoError(t, err)
	assert.Contains(t, html.UnescapeString(string(page)), r.Headline())
	assert.Contains(t, html.UnescapeString(string(page)), "["+r.Interval()+"]")

	tex, err := os.ReadFile(filepath.Join(dir, TablesDir, "paired.tex"))
	require.NoError(t, err)
	latexNum := func(x float64) string { return strings.Replace(reports.SignedPP(x), "−", "$-$", 1) }
	assert.Contains(t, string(tex), "["+latexNum(r.CILow)+", "+latexNum(r.CIHigh)+"]")
	assert.Contains(t, string(tex), reports.FormatP(r.P))
}
