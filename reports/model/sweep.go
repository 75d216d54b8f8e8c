package model

import "github.com/entropix-eval/entropix-eval/reports"

// SweepRun is one model × task of a sweep matrix as its figure and its model ×
// sampler table show it: every sampler's accuracy under the run's primary
// filter, seeds and repeats pooled as in the run's own report.
type SweepRun struct {
	Model, Task   string
	PrimaryFilter string
	Samplers      []SweepSampler
}

// SweepSampler is one sampler of a SweepRun.
type SweepSampler struct {
	Label string
	// Family groups the samplers of a temperature grid: the sampler's name and
	// its settings other than temperature, e.g. "min_p(min_p=0.1)".
	Family string
	// Temperature is the temperature in effect (the manifest's description);
	// NaN for a greedy sampler or one without a temperature.
	Temperature float64
	Accuracy    reports.ClusteredAccuracy
}
