package latex

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

func sweepRuns() []model.SweepRun {
	s := func(label string, mean, se float64, n int) model.SweepSampler {
		return model.SweepSampler{Label: label, Temperature: math.NaN(), Accuracy: reports.ClusteredAccuracy{N: n, Mean: mean, SE: se}}
	}
	return []model.SweepRun{
		{Model: "SmolLM2-135M", Task: "gsm8k_cot", PrimaryFilter: "exact_match,strict-match",
			Samplers: []model.SweepSampler{s("greedy", 0.25, 0.05, 80), s("min_p", 0.3125, 0.052, 80)}},
		{Model: "SmolLM2-360M", Task: "gsm8k_cot", PrimaryFilter: "exact_match,strict-match",
			Samplers: []model.SweepSampler{s("greedy", 0.5, math.NaN(), 80), s("top_p", 0.4, 0.06, 80)}},
	}
}

// One row per sampler in first-seen order, one column per model, the best of
// each model in bold, "--" where a model did not run the sampler.
func TestSweepTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, SweepTable(&b, "runs/nightly", "gsm8k_cot", sweepRuns(), Options{}))
	tex := b.String()
	assert.Contains(t, tex, `\label{tab:entropix-sweep-gsm8k_cot}`)
	assert.Contains(t, tex, `over $n = 80$ problems`)
	assert.Contains(t, tex, `Sampler & \begin{tabular}[b]{@{}c@{}}SmolLM2\\135M\end{tabular} & `)
	assert.Contains(t, tex, "greedy & 25.0\\,{\\scriptsize$\\pm$5.0} & \\textbf{50.0} \\\\\n")
	assert.Contains(t, tex, "min\\_\\allowbreak{}p & \\textbf{31.2}\\,{\\scriptsize$\\pm$5.2} & -- \\\\\n")
	assert.Contains(t, tex, "top\\_\\allowbreak{}p & -- & 40.0\\,{\\scriptsize$\\pm$6.0} \\\\\n")
	require.Error(t, SweepTable(&b, "x", "t", nil, Options{}))
}
