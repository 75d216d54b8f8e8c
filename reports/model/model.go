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
	// Comparisons is comparisons.arrow: every sampler against Baseline, per filter,
	// seeds pooled; PHolm is adjusted over all rows.
	Comparisons []reports.ComparisonRow
	// Trace-derived sections; empty when the run has no traces.arrow.
	HasTraces  bool
	Strategies []StrategyStats // Entropix samplers only
	Density    []Density
	Curves     []EntropyCurve
	Problems   []Problem
	TokenNote  string // what the per-problem browser leaves out, in words
	Notes      []string
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
	// Filters follow the task's score keys' order (filter_list × metric_list).
	Filters        []FilterAccuracy
	Responses      int
	TruncationRate float64
	MeanGenTokens  float64
	// TokensPerSecond is per sequence: generated tokens over the sum of response
	// latencies. Sequences share a batch, so it is not the device's throughput.
	TokensPerSecond float64
	Thresholds      *Thresholds
}

// FilterAccuracy is a sampler's accuracy under one score key.
type FilterAccuracy struct {
	Filter   reports.ScoreKey
	N        int // problems
	Accuracy float64
	SE       float64 // lm-eval SE over problems (repeats and seeds averaged first)
	CILow    float64 // 95% Wilson interval
	CIHigh   float64
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
	// ByFrequency is the strict accuracy of responses grouped by the share of
	// their tokens that came from one strategy.
	ByFrequency []FrequencyBin
}

// StrategyShare is one strategy's share of a sampler's tokens.
type StrategyShare struct {
	Strategy string
	Tokens   int64
	Share    float64
}

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
	Thresholds *Thresholds
}

// EntropyCurve is the mean token entropy at each generation step, separately for
// responses that ended correct and wrong (strict).
type EntropyCurve struct {
	Sampler string
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
	Target    string
	Responses []Response
}

// Response is one sampler's answer to a problem.
type Response struct {
	Sampler string
	Seed    int64
	Repeat  int32
	Text    string
	// Answers are the filters' answers in filter_list order, Correct the
	// scores (1 = correct) in score-key order.
	Answers   []string
	Correct   []bool
	Finish    string
	GenTokens int32
	Tokens    *Tokens // nil when the token budget left it out
}

// Tokens is a response's per-token trace, for colouring.
type Tokens struct {
	Text       []string
	Entropy    []float64
	Varentropy []float64
	Strategy   []string
}
