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
	}{{0.25, "0.25"}, {0.0004, "$<$0.001"}, {1, "1.0"}, {0.0488, "0.049"}, {math.NaN(), "--"}} {
		assert.Equal(t, tc.want, PValue(tc.p))
	}
}

func report() *model.Report {
	acc := func(a, se float64) []model.FilterAccuracy {
		var out []model.FilterAccuracy
		for _, f := range []string{"strict-match", "flexible-extract"} {
			out = append(out, model.FilterAccuracy{Filter: f, SeedMean: a, SeedSD: 0.01,
				ClusteredAccuracy: reports.ClusteredAccuracy{N: 1319, Mean: a, SE: se}})
		}
		return out
	}
	return &model.Report{
		RunDir: "runs/night_1", Task: "gsm8k_cot", Baseline: "greedy",
		Filters: []string{"strict-match", "flexible-extract"}, PrimaryFilter: "strict-match",
		Samplers: []model.Sampler{
			{Label: "greedy", Seeds: []int64{0}, Filters: acc(0.312, 0.0128), TruncationRate: 0.02, MeanGenTokens: 141.25},
			{Label: "min_p(min_p=0.1,T=1.5)", Seeds: []int64{0, 1, 2}, Filters: acc(0.2875, 0.0125), MeanGenTokens: 150},
		},
		Comparisons: []reports.ComparisonRow{
			{Sampler: "min_p(min_p=0.1,T=1.5)", Baseline: "greedy", Filter: "flexible-extract",
				Alternative: reports.TwoSided, Delta: 0.004, CILow: -0.01, CIHigh: 0.018, P: 0.61, PTest: reports.SignFlipExact, MDE80: 0.02},
			{Sampler: "min_p(min_p=0.1,T=1.5)", Baseline: "greedy", Filter: "strict-match", Primary: true,
				Alternative: reports.TwoSided, Delta: -0.0245, CILow: -0.041, CIHigh: -0.008, P: 0.0033, PTest: reports.SignFlipExact,
				PHolm: reports.Some(0.0099), HolmFamily: "task:gsm8k_cot", HolmM: 1, MDE80: 0.0231},
		},
	}
}

func TestAccuracyTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, AccuracyTable(&b, report(), Options{Label: "gsm8k"}))
	s := b.String()
	for _, want := range []string{`\toprule`, `\midrule`, `\bottomrule`, `\label{tab:gsm8k-accuracy}`,
		`\begin{tabular}{>{\raggedright\arraybackslash}p{0.27\columnwidth}rr}`,
		`greedy & \textbf{31.2}\,{\scriptsize$\pm$1.3} & \textbf{31.2}\,{\scriptsize$\pm$1.3} \\`,
		`min\_\allowbreak{}p(\allowbreak{}min\_\allowbreak{}p=\allowbreak{}0.1,\allowbreak{}T=\allowbreak{}1.5) & 28.7\,{\scriptsize$\pm$1.2}`,
		`runs/night\_1`, `\begin{tabular}[b]{@{}c@{}}strict\\match\end{tabular}`, `$n = 1319$ problems`} {
		assert.Contains(t, s, want)
	}
	assert.Equal(t, strings.Count(s, `\begin{`), strings.Count(s, `\end{`))
}

// Scores aggregated over the corpus are columns of their own, marked: a
// Python aggregation's (a fraction, no SE) in percent, a corpus metric's
// (sacrebleu's 0–100 scale) as it is, with its bootstrap SE.
func TestAccuracyTableCorpusAggregated(t *testing.T) {
	r := report()
	r.CorpusAggregated = []string{"inst_level_strict_acc,none", "bleu,none"}
	for i := range r.Samplers {
		r.Samplers[i].CorpusAggregated = []model.AggregatedScore{
			{Key: "inst_level_strict_acc,none", Value: 0.25 * float64(i+1), SE: math.NaN()},
			{Key: "bleu,none", Value: 10 * float64(i+1), SE: 1.25, Points: true}}
	}
	var b bytes.Buffer
	require.NoError(t, AccuracyTable(&b, r, Options{Label: "gsm8k"}))
	s := b.String()
	for _, want := range []string{`p{0.27\columnwidth}rrrr}`,
		`\begin{tabular}[b]{@{}c@{}}inst\\level\\strict\\acc,none\end{tabular}\textsuperscript{\dag} & bleu,none\textsuperscript{\dag} \\`,
		`greedy & \textbf{31.2}\,{\scriptsize$\pm$1.3} & \textbf{31.2}\,{\scriptsize$\pm$1.3} & 25.0 & 10.0\,{\scriptsize$\pm$1.2} \\`,
		`& 50.0 & 20.0\,{\scriptsize$\pm$1.2} \\`,
		`\dag: computed over every doc at once, without a per-problem score: corpus metrics (bleu, chrf, ter) on sacrebleu's 0--100 scale $\pm$ lm-eval's bootstrap SE (one seed), or the task's Python aggregation (no SE).`} {
		assert.Contains(t, s, want)
	}
}

func TestComparisonTables(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, ComparisonTable(&b, report(), Options{}))
	s := b.String()
	assert.Contains(t, s, `min\_\allowbreak{}p(\allowbreak{}min\_\allowbreak{}p=\allowbreak{}0.1,\allowbreak{}T=\allowbreak{}1.5) & $-$2.5$^{**}$ & [$-$4.1, $-$0.8] & 0.0033 & 0.0099 & 2.3 \\`)
	assert.Contains(t, s, `Holm within the family task:gsm8k\_cot ($m = 1$)`)
	assert.NotContains(t, s, "flexible-extract &", "secondary filters have their own table")
	assert.Contains(t, s, `\label{tab:entropix-paired}`)
	assert.Contains(t, s, `strict-match: paired difference from greedy`)

	b.Reset()
	require.NoError(t, SecondaryTable(&b, report(), Options{}))
	s = b.String()
	assert.Contains(t, s, `\begin{table*}`)
	assert.Contains(t, s, `& flexible-extract & +0.4 & [$-$1.0, +1.8] & 0.61 & 2.0 \\`)

	// A one-sided gate shows its one bound.
	r := report()
	r.Comparisons[1].Alternative, r.Comparisons[1].CILow = reports.Less, -1
	b.Reset()
	require.NoError(t, ComparisonTable(&b, r, Options{}))
	assert.Contains(t, b.String(), `& $-$2.5$^{**}$ & $\le$ $-$0.8 &`)
	assert.Contains(t, b.String(), `one-sided (less)`)

	r = report()
	r.Comparisons = nil
	b.Reset()
	require.NoError(t, ComparisonTable(&b, r, Options{}))
	assert.Contains(t, b.String(), "nothing to compare")
}
