package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarshalComparisonsJSON(t *testing.T) {
	b, err := MarshalComparisonsJSON(sampleComparisons()[1:])
	require.NoError(t, err)
	want := `[
  {"sampler": "min_p", "baseline": "greedy", "filter": "flexible-extract", "primary": false, "n_problems": 5, "samples_per_problem": 1, "baseline_samples_per_problem": 1, "sampler_acc": 0, "baseline_acc": 0, "delta": -0.2, "delta_se": null, "ci_low": null, "ci_high": null, "boot_ci_low": 0, "boot_ci_high": 0, "boot_resamples": 1, "p": 0.125, "p_test": "sign_flip_mc", "p_holm": null, "mde80": null, "mcnemar_b": 1, "mcnemar_c": 6, "mcnemar_p": 0.125}
]
`
	assert.Equal(t, want, string(b))
}

func TestHeadline(t *testing.T) {
	r := ComparisonRow{Sampler: "entropix", Delta: 0.021, CILow: 0.001, CIHigh: 0.0404, P: 0.0401, PHolm: Some(0.0802),
		NProblems: 1319, SamplesPerProblem: 3, BaselineSamplesPerProblem: 3, MDE80: 0.0241}
	assert.Equal(t, "entropix +2.1 pp [95% CI +0.1, +4.0], p = 0.04, Holm p = 0.08, n = 1319 problems × 3 samples; detectable: ±2.4 pp", r.Headline())
	r.Delta, r.CILow, r.PHolm, r.SamplesPerProblem, r.BaselineSamplesPerProblem, r.P = -0.004, -0.0241, None[float64](), 1, 1, 0.0004
	assert.Equal(t, "entropix −0.4 pp [95% CI −2.4, +4.0], p < 0.001, n = 1319 problems; detectable: ±2.4 pp", r.Headline())
	r = ComparisonRow{Sampler: "twin", PHolm: Some(1.0), P: 1, NProblems: 12, SamplesPerProblem: 1, BaselineSamplesPerProblem: 1}
	assert.Equal(t, "twin +0.0 pp [95% CI +0.0, +0.0], p = 1.00, Holm p = 1.00, n = 12 problems; no problem differs", r.Headline())
}
