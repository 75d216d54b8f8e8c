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
  {"sampler": "min_p", "baseline": "greedy", "filter": "flexible-extract", "primary": false, "alternative": "less", "n_problems": 5, "n_differing": 7, "samples_per_problem": 1, "baseline_samples_per_problem": 1, "sampler_deterministic": false, "baseline_deterministic": false, "sampler_acc": 0, "baseline_acc": 0, "delta": -0.2, "delta_se": null, "ci_low": -1, "ci_high": 0.1, "normal_ci_low": null, "normal_ci_high": null, "boot_ci_low": 0, "boot_ci_high": 0, "boot_resamples": 1, "boot_beyond_zero": 0, "p": 0.125, "p_test": "sign_flip_mc", "p_holm": null, "holm_family": "", "holm_m": 0, "mde80": null, "mde_alpha": 0.05, "mcnemar_b": 1, "mcnemar_c": 6, "mcnemar_p": 0.125, "mcnemar_test": "exact_binomial"}
]
`
	assert.Equal(t, want, string(b))
}

func TestHeadline(t *testing.T) {
	r := ComparisonRow{Sampler: "entropix", Alternative: TwoSided, Delta: 0.021, CILow: 0.001, CIHigh: 0.0404, P: 0.0401,
		PHolm: Some(0.0802), HolmM: 2, NProblems: 1319, NDiffering: 200, SamplesPerProblem: 3, BaselineSamplesPerProblem: 3, MDE80: 0.0241}
	assert.Equal(t, "entropix +2.1 pp [95% CI +0.1, +4.0], p = 0.040, Holm p = 0.080 (2 tests), n = 1319 problems × 3 samples; sensitivity ±2.4 pp", r.Headline())
	r.Delta, r.CILow, r.PHolm, r.SamplesPerProblem, r.BaselineSamplesPerProblem, r.P = -0.004, -0.0241, None[float64](), 1, 1, 0.0004
	assert.Equal(t, "entropix −0.4 pp [95% CI −2.4, +4.0], p < 0.001, n = 1319 problems; sensitivity ±2.4 pp", r.Headline())
	// Greedy's copies over three seeds are one answer, said so.
	r.SamplesPerProblem, r.BaselineSamplesPerProblem, r.BaselineDeterministic = 3, 3, true
	assert.Equal(t, "entropix −0.4 pp [95% CI −2.4, +4.0], p < 0.001, n = 1319 problems (sampler 3 samples, baseline deterministic); sensitivity ±2.4 pp", r.Headline())
	// One-sided: the bound that exists.
	r.Alternative, r.CIHigh, r.P, r.BaselineDeterministic = Less, -0.0012, 0.0147, false
	assert.Equal(t, "entropix −0.4 pp [95% CI ≤ −0.1], one-sided p = 0.015, n = 1319 problems × 3 samples; sensitivity ±2.4 pp", r.Headline())
	r = ComparisonRow{Sampler: "twin", Alternative: TwoSided, P: 1, NProblems: 12, SamplesPerProblem: 3, BaselineSamplesPerProblem: 3,
		SamplerDeterministic: true, BaselineDeterministic: true}
	assert.Equal(t, "twin 0.0 pp [95% CI 0.0, 0.0], p = 1.0, n = 12 problems, both deterministic; no problem differs: nothing to test", r.Headline())
}

func TestFormatPHasTwoSignificantDigits(t *testing.T) {
	for p, want := range map[float64]string{
		0.0488: "0.049", 0.0147: "0.015", 0.238: "0.24", 1: "1.0", 0.5: "0.50", 0.0996: "0.10",
		0.00999: "0.010", 0.001: "0.0010", 0.000999: "< 0.001", 0.0701: "0.070", 0.999: "1.0",
	} {
		assert.Equal(t, want, FormatP(p), "p = %v", p)
	}
}

func TestBootIntervalSaysWhereAZeroEndLies(t *testing.T) {
	r := ComparisonRow{Delta: -0.088, BootCILow: -0.167, BootCIHigh: 0, BootResamples: 10000, BootBeyondZero: 240}
	assert.Equal(t, "−16.7, 0.0 (2.4% ≥ 0)", r.BootInterval())
	r.BootCIHigh = -0.008
	assert.Equal(t, "−16.7, −0.8", r.BootInterval())
	assert.Equal(t, "+0.0", SignedPP(0.0004))
	assert.Equal(t, "−0.0", SignedPP(-0.0004))
}
