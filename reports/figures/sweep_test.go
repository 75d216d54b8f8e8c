package figures

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

func TestAccuracyVsTemperature(t *testing.T) {
	s := func(label, family string, temp, mean float64) model.SweepSampler {
		return model.SweepSampler{Label: label, Family: family, Temperature: temp,
			Accuracy: reports.ClusteredAccuracy{N: 50, Mean: mean, CILow: mean - 0.1, CIHigh: mean + 0.1}}
	}
	run := model.SweepRun{Model: "SmolLM2", Task: "gsm8k_cot", PrimaryFilter: "exact_match,strict-match", Samplers: []model.SweepSampler{
		s("greedy", "greedy", math.NaN(), 0.3),
		s("min_p(min_p=0.1,temperature=1.5)", "min_p(min_p=0.1)", 1.5, 0.2),
		s("min_p(min_p=0.1,temperature=0.7)", "min_p(min_p=0.1)", 0.7, 0.35),
		s("top_p(temperature=1,top_p=0.9)", "top_p(top_p=0.9)", 1, 0.25),
	}}
	p, err := AccuracyVsTemperature(run)
	require.NoError(t, err)
	svg, err := SVG(p, OneColumn)
	require.NoError(t, err)
	for _, want := range []string{"min_p(min_p=0.1)", "top_p(top_p=0.9)", "greedy", "temperature", "SmolLM2, gsm8k_cot", "exact_match,strict-match, 95% CI"} {
		assert.Contains(t, string(svg), want)
	}
	// Temperatures span 0.7 to 1.5: the axis covers them, greedy's line too.
	assert.InDelta(t, 0.7, p.X.Min, 1e-9)
	assert.InDelta(t, 1.5, p.X.Max, 1e-9)
	assert.Zero(t, p.Y.Min)
	assert.LessOrEqual(t, p.Y.Max, 100.0, "accuracy stays within 0–100%")

	_, err = AccuracyVsTemperature(model.SweepRun{Model: "m", Task: "t", Samplers: []model.SweepSampler{s("greedy", "greedy", math.NaN(), 0.3)}})
	require.ErrorContains(t, err, "no sampler has a temperature")
}
