package latex

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"greedy", "greedy"},
		{"min_p(p=10%,T=1.5)", `min\_p(p=10\%,T=1.5)`},
		{`a\b`, `a\textbackslash{}b`},
		{"{x}&$#", `\{x\}\&\$\#`},
		{"~^", `\textasciitilde{}\textasciicircum{}`},
		{"<b>", `\textless{}b\textgreater{}`},
		{"line\nbreak\x00\x07", "line break"},
		{`\end{tabular}`, `\textbackslash{}end\{tabular\}`},
	} {
		assert.Equal(t, tc.want, Escape(tc.in), tc.in)
	}
}

func TestPValue(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want string
	}{{0.25, "0.250"}, {0.0004, "$<$0.001"}, {1, "1.000"}, {math.NaN(), "--"}} {
		assert.Equal(t, tc.want, PValue(tc.p))
	}
}

func report() *model.Report {
	acc := func(a, se float64) []model.FilterAccuracy {
		var out []model.FilterAccuracy
		for _, f := range []reports.ScoreKey{"exact_match,strict-match", "exact_match,flexible-extract", "numeric_match,strict-match"} {
			out = append(out, model.FilterAccuracy{Filter: f, N: 1319, Accuracy: a, SE: se, SeedMean: a, SeedSD: 0.01})
		}
		return out
	}
	return &model.Report{
		RunDir: "runs/night_1", Task: "gsm8k_cot", Baseline: "greedy",
		Samplers: []model.Sampler{
			{Label: "greedy", Seeds: []int64{0}, Filters: acc(0.312, 0.0128), TruncationRate: 0.02, MeanGenTokens: 141.25},
			{Label: "min_p(min_p=0.1,T=1.5)", Seeds: []int64{0, 1, 2}, Filters: acc(0.2875, 0.0125), MeanGenTokens: 150},
		},
		Comparisons: []reports.ComparisonRow{{SamplerA: "min_p(min_p=0.1,T=1.5)", SamplerB: "greedy", Score: reports.ScoreKey("exact_match,strict-match"),
			Difference: -0.0245, CILow: -0.041, CIHigh: -0.008, McNemarB: 40, McNemarC: 72, PValue: 0.0033, PHolm: 0.0099}},
	}
}

func TestAccuracyTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, AccuracyTable(&b, report()))
	s := b.String()
	for _, want := range []string{`\toprule`, `\midrule`, `\bottomrule`, `\begin{tabular}{lrrrrrrr}`,
		`greedy & 31.2 $\pm$ 1.3 & 31.2 $\pm$ 1.3 & 31.2 $\pm$ 1.3 & 1319 & 2.0 & 141.2 & -- \\`,
		`min\_p(min\_p=0.1,T=1.5) & 28.7 $\pm$ 1.2`, `28.7 $\pm$ 1.0 (3) \\`, `runs/night\_1`} {
		assert.Contains(t, s, want)
	}
	assert.Equal(t, strings.Count(s, `\begin{`), strings.Count(s, `\end{`))
}

func TestComparisonTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, ComparisonTable(&b, report()))
	s := b.String()
	assert.Contains(t, s, `min\_p(min\_p=0.1,T=1.5) & exact\_match,strict-match & -2.5 & [-4.1, -0.8] & 40/72 & 0.003 & 0.010 \\`)
	assert.Contains(t, s, `with greedy on the same problems`)

	r := report()
	r.Comparisons = nil
	b.Reset()
	require.NoError(t, ComparisonTable(&b, r))
	assert.Contains(t, b.String(), "nothing to compare")
}
