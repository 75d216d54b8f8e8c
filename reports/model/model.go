// Package model holds the numbers one report shows. runreport computes a Report
// once from a run directory; html, latex and figures only render it, so the page,
// the paper tables and the figures can never disagree.
package model

import (
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
)

// Report is everything a run's report shows.
type Report struct {
	RunDir    string
	Task      string
	Generated time.Time
	Manifest  Manifest
	// Baseline is the sampler every other sampler is compared with.
	Baseline string
	// Samplers in the manifest's order.
	Samplers []Sampler
	// Summary is summary.arrow: one row per sampler × seed × filter.
	Summary []reports.SummaryRow
	// CorpusAggregated are the score keys computed over every doc at once
	// (results.json): corpus metrics (bleu, chrf, ter) and Python
	// aggregations, in the task's order: scores without a per-problem
	// value, so without paired statistics.
	CorpusAggregated []string
	// Filters are the task's score keys ("metric,filter") in its order;
	// PrimaryFilter is the one whose comparisons form the Holm family and
	// lead the page.
	Filters       []string
	PrimaryFilter string
	// AnswerFilters are the task's filter pipelines (filter_list order), whose
	// answers each response shows.
	AnswerFilters []string
	// Throughput is generated tokens per wall-clock second of the run's last
	// session (manifest stats); 0 when unknown. Per-sampler rates are not
	// shown: samplers share batches, so no wall clock belongs to one sampler.
	Throughput float64
	// Provenance is the run's, as results.arrow carries it; summary.arrow and
	// comparisons.arrow carry it on.
	Provenance reports.Provenance
	// FigureSize names the figures' size preset (figures.SizeNamed); "" means
	// one column.
	FigureSize string
	// TableLabel prefixes the LaTeX tables' \label keys; "" means the default.
	TableLabel string
	// FewShot is the number of few-shot examples; −1 when the manifest does
	// not say.
	FewShot int
	// Comparisons is comparisons.arrow: every sampler against Baseline, per
	// filter, seeds and repeats averaged within a problem; PHolm is adjusted
	// within the family each row names (HolmFamily).
	Comparisons []reports.ComparisonRow
	// Trace-derived sections; empty when the run has no traces.arrow.
	HasTraces  bool
	Strategies []StrategyStats // Entropix samplers only
	Density    []Density
	Curves     []EntropyCurve
	Problems   []Problem
	TokenNote  string // what the per-problem browser leaves out, in words
	Notes      []string
	// Header says what ran (model, task, shots, problems, seeds, samplers,
	// backend, precision, date); Warnings what makes a number not mean what it
	// seems (prompts cut, answers cut by the budget, untestable comparisons).
	Header   []KeyValue
	Warnings []string
}

// Manifest is the part of manifest.json a reader wants first, plus the whole
// file for reference.
type Manifest struct {
	Highlights []KeyValue
	Pretty     string // indented manifest.json
}

// KeyValue is one line of the manifest table.
type KeyValue struct{ Key, Value string }

// Sampler is one sampler's accuracy and cost, seeds pooled.
type Sampler struct {
	Label    string
	Entropix bool
	Seeds    []int64
	// Filters follow Report.Filters' order.
	Filters        []FilterAccuracy
	Responses      int
	TruncationRate float64
	MeanGenTokens  float64
	Thresholds     *Thresholds
	// CorpusAggregated are the scores computed over every doc at once
	// (bleu; IFEval's instruction-level accuracies): no per-problem score,
	// so no interval or paired test.
	CorpusAggregated []AggregatedScore
}

// AggregatedScore is a score computed over a run's docs at once; Value is
// the mean over the sampler's seeds of each seed's value (NaN for a sampler
// without it), SE its standard error where there is one, else NoSE says why.
type AggregatedScore struct {
	Key       string // "metric,filter"
	Value, SE float64
	NoSE      string
	// Points: the value is on sacrebleu's 0–100 scale (bleu, chrf, ter),
	// not a fraction.
	Points bool
	// Test is the paired test against the baseline (corpus metrics), nil
	// for the baseline and where there is none (NoTest says why).
	Test   *reports.CorpusTest
	NoTest string
}

// FilterAccuracy is a sampler's accuracy under one filter: problem-level, each
// problem's seeds and repeats averaged first.
type FilterAccuracy struct {
	Filter string
	reports.ClusteredAccuracy
	// SeedMean ± SeedSD is the spread of per-seed accuracies (SeedSD NaN with one seed).
	SeedMean float64
	SeedSD   float64
}

// Thresholds are an Entropix sampler's logits entropy and varentropy levels.
type Thresholds struct {
	Entropy    []Level
	Varentropy []Level
}

// Level is one named threshold.
type Level struct {
	Name  string
	Value float64
}

// StrategyStats describes how often an Entropix sampler's strategies fired.
type StrategyStats struct {
	Sampler string
	Tokens  int64
	Shares  []StrategyShare // most frequent first
	// ByFrequency is the primary filter's accuracy of responses grouped by the share of
	// their tokens that came from one strategy.
	ByFrequency []FrequencyBin
}

// StrategyShare is one strategy's share of a sampler's tokens and the mean
// metrics of the tokens it decided (the entropix repos' per-strategy view).
type StrategyShare struct {
	Strategy string
	Tokens   int64
	Share    float64
	// Means of the decided tokens' metrics, in TokenMetrics order; NaN where
	// the run did not record a metric (attention statistics are optional).
	Means [len(TokenMetrics)]float64
}

// TokenMetrics names the per-token metrics averaged per strategy, with units.
var TokenMetrics = [6]string{"entropy (bits)", "varentropy (bits²)", "attn entropy", "attn varentropy", "agreement", "interaction strength"}

// FrequencyBin is the accuracy of the responses whose share of Strategy tokens
// lies in (Low, High] (Low = High = 0: the strategy never fired).
type FrequencyBin struct {
	Strategy  string
	Label     string
	Low, High float64
	Responses int
	Accuracy  float64
}

// Density is a 2-D histogram of (entropy, varentropy) over a sampler's tokens.
type Density struct {
	Sampler string
	// Cells are row-major: Counts[j*NX+i] counts tokens with entropy in bin i and
	// varentropy in bin j.
	NX, NY     int
	EntropyMax float64 // bits; the axes start at 0
	VarentMax  float64 // bits²
	Counts     []uint32
	Tokens     int64
	Clipped    int64 // tokens beyond the axes, counted in the last bins
	// CountMax is the largest cell count of all the report's densities: the
	// top of their shared colour scale (0: this density's own largest).
	CountMax   uint32
	Thresholds *Thresholds
}

// EntropyCurve is the mean token entropy at each generation step, separately for
// responses that ended correct and wrong on the primary filter.
type EntropyCurve struct {
	Sampler string
	// YMax is the top of the y axis shared by all the report's curves (0: own).
	YMax    float64
	Correct []CurvePoint
	Wrong   []CurvePoint
}

// CurvePoint is the mean entropy of the tokens at one step (or step bucket).
type CurvePoint struct {
	Step int
	Mean float64
	N    int64
}

// Problem is one problem in the browser.
type Problem struct {
	ID        int32
	Question  string
	Prompt    string // the exact prompt (few-shot examples included); "" when unknown
	Target    string
	Responses []Response
}

// Response is one sampler's answer to a problem.
type Response struct {
	Sampler string
	Seed    int64
	Repeat  int32
	Text    string
	// Answers[i] is the answer of Report.AnswerFilters[i] ("" when the
	// filter gave none); Correct[i] whether the score under Report.Filters[i]
	// is 1.
	Answers   []string
	Correct   []bool
	Finish    string
	GenTokens int32
	Tokens    *Tokens // nil when the token budget left it out
}

// Tokens is a response's per-token trace, for colouring and its timeline.
type Tokens struct {
	Text        []string
	Entropy     []float64
	Varentropy  []float64
	AttnEntropy []float64 // NaN where the run did not record it
	Strategy    []string
}
