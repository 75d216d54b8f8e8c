package model

import (
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
)

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

// RunAccuracies is what a run directory says about itself and its samplers'
// pooled accuracy under every filter: the rows of a sweep's tables and of
// the history of nightly runs.
type RunAccuracies struct {
	Dir           string
	Task          string
	PrimaryFilter string
	RunKey        string
	Started       time.Time
	// Model is the checkpoint path the run loaded; ModelFiles its files'
	// SHA-256 in the manifest's order.
	Model        string
	ModelFiles   []string
	CodeRevision string
	CodeModified bool
	// Throughput is generated tokens per wall-clock second (0: unknown).
	Throughput float64
	Samplers   []SamplerAccuracies
	// CorpusAggregated are the run's score keys computed over the corpus
	// (bleu, chrf, ter, Python aggregations): no per-problem accuracy, so
	// not among Samplers' filters.
	CorpusAggregated []string
}

// SamplerAccuracies is one sampler of a RunAccuracies.
type SamplerAccuracies struct {
	Label string
	// Spec is the canonical spec compare pairs samplers by: every parameter
	// in effect, keys sorted.
	Spec        string
	Family      string
	Temperature float64
	// Filters follow the task's score keys; Filters[i].Filter names each.
	Filters []FilterAccuracy
}
