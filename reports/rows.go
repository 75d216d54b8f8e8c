package reports

import (
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// Column names of traces.arrow. Shared names (run_id, problem_id, repeat) have one
// constant used by every schema that carries them.
const (
	// ColRunKey names the run across sweeps (Provenance.RunKey); with sampler,
	// seed, problem_id and repeat it joins traces to results across runs.
	ColRunKey              = "run_key"
	ColRunID               = "run_id"
	ColTask                = "task"
	ColProblemID           = "problem_id"
	ColRepeat              = "repeat"
	ColStep                = "step"
	ColTokenID             = "token_id"
	ColTokenText           = "token_text"
	ColStrategy            = "strategy"
	ColEntropy             = "entropy"
	ColVarentropy          = "varentropy"
	ColAttnEntropy         = "attn_entropy"
	ColAttnVarentropy      = "attn_varentropy"
	ColAgreement           = "agreement"
	ColInteractionStrength = "interaction_strength"
	ColTemperature         = "temperature"
	ColTopK                = "top_k"
	ColTopP                = "top_p"
	ColMinP                = "min_p"
	ColLogProb             = "logprob"
	ColTailMass            = "tail_mass"
	ColSampleLogProb       = "sample_logprob"
	ColSurvivors           = "survivors"
	ColNSamples            = "n_samples"
	ColConfidence          = "confidence"
	ColDrawTailMass        = "draw_tail_mass"
	ColTailCut             = "tail_cut"
	ColFaithful            = "faithful"
	// ColAttnMode and ColPadLen are the attention view the row's attention
	// statistics were computed in ("masked", or "padded" over pad_len slots):
	// Entropix variants read their own, baselines the sweep's.
	ColAttnMode = "attn_mode"
	ColPadLen   = "pad_len"
)

// Column names of results.arrow (besides the shared ones above).
const (
	ColSampler = "sampler"
	// ColSamplerSpec is the sampler's canonical spec (CanonicalSpec), equal for
	// equal samplers however written; ColModel the model's name (ModelName)
	// and ColDate the run's start date (UTC, YYYY-MM-DD), in results and
	// summary, so rows of many runs concatenate with what tells them apart.
	ColSamplerSpec  = "sampler_spec"
	ColModel        = "model"
	ColDate         = "date"
	ColSeed         = "seed"
	ColPromptHash   = "prompt_hash"
	ColTarget       = "target"
	ColResponse     = "response"
	ColPromptTokens = "prompt_tokens"
	ColGenTokens    = "gen_tokens"
	ColFinishReason = "finish_reason"
	ColLatencyMS    = "latency_ms"
)

// Column names of summary.arrow and comparisons.arrow.
const (
	// ColFilter holds a score key, lm-eval's "metric,filter"
	// (exact_match,strict-match), in summary.arrow and comparisons.arrow.
	ColFilter         = "filter"
	ColN              = "n"
	ColRepeats        = "repeats"
	ColAccuracy       = "accuracy"
	ColSE             = "se"
	ColCILow          = "ci_low"
	ColCIHigh         = "ci_high"
	ColTruncationRate = "truncation_rate"
	ColMeanGenTokens  = "mean_gen_tokens"

	ColPHolm = "p_holm"
)

// TraceRow is one generated token (traces.arrow): where it belongs, and the
// token's record as the run made it.
type TraceRow struct {
	RunKey  string // Provenance.RunKey
	RunID   string // "sampler/seed=N" within the run
	Task    string
	Sampler string
	// AttnMode ("masked" or "padded") and PadLen (the padded view's slots, 0
	// when masked) are the view the attention statistics were computed in.
	AttnMode  string
	PadLen    int32
	Seed      int64
	ProblemID int32 // dataset doc id (row index)
	Repeat    int32 // 0-based repeat index of the problem within the run
	Step      int32 // 0-based index of the token within the response
	TokenRecord
}

// TokenRecord is one generated token: the sampler's decision and the engine's
// statistics it was made from. It is the one type a token lives in from the
// sampler to the Arrow row: the run builds it once per token, the journal
// stores it, and traces.arrow writes its fields as columns.
type TokenRecord struct {
	// Text is the decoded piece, for display; invalid UTF-8 (half a
	// character) is stored as U+FFFD in traces.arrow, and the token id keeps
	// the exact identity.
	Text string
	// Decision is what the sampler chose and every parameter it used.
	sampler.Decision
	// Entropy and Varentropy are the full-vocabulary logit statistics at
	// temperature 1 (bits, bits²).
	Entropy    float64
	Varentropy float64
	// Metric-layer attention statistics; NaN when the run did not compute them.
	AttnEntropy         float64
	AttnVarentropy      float64
	Agreement           float64
	InteractionStrength float64
	// VocabTailMass is the probability mass outside the engine's top-K
	// candidates at temperature 1 (the decision's TailMass is the tempered one).
	VocabTailMass float64
}

// FinishReason says why generation of a response stopped.
type FinishReason string

const (
	FinishStop   FinishReason = "stop"   // a stop string matched
	FinishEOS    FinishReason = "eos"    // the tokenizer's end-of-sequence token
	FinishLength FinishReason = "length" // the max-new-tokens limit (truncation)
)

func (f FinishReason) check() error {
	switch f {
	case FinishStop, FinishEOS, FinishLength:
		return nil
	}
	return fmt.Errorf("finish_reason %q: want stop, eos or length", string(f))
}

// ResultRow is one scored response: one per run × problem × repeat
// (results.arrow). It is generic over the task's filters and metrics: Answers
// holds each filter pipeline's answer, Scores each (metric, filter) score, as
// lm-eval's samples carry filtered_resps and "metric,filter" values.
type ResultRow struct {
	RunKey      string // Provenance.RunKey
	RunID       string
	Task        string
	Sampler     string
	SamplerSpec string // CanonicalSpec
	Model       string // ModelName
	Date        string // the run's start, UTC, YYYY-MM-DD
	Seed        int64
	ProblemID   int32
	Repeat      int32
	PromptHash  string // hex digest of the exact prompt text (eval defines the hash)
	Target      string
	Response    string
	// Answers are the filter pipelines' outputs in the task's filter_list
	// order ("[invalid]" when a regex matched nothing, as lm-eval).
	Answers []Answer
	// Scores are every metric under every filter, metric_list order within
	// filter_list order.
	Scores []Score
	// Lists are the list-valued scores (a metric a Python aggregation
	// folds), in the same order; they are no per-problem score.
	Lists        []ListScore
	PromptTokens int32
	GenTokens    int32
	FinishReason FinishReason
	LatencyMS    float64
}

// Answer is one filter pipeline's answer for a response.
type Answer struct {
	Filter string
	Answer string
}

// Score is one metric of a response under one filter: 1 or 0 for
// exact_match and numeric_match.
type Score struct {
	Metric string
	Filter string
	Value  float64
}

// Key is the score's lm-eval key.
func (s Score) Key() ScoreKey { return KeyOf(s.Metric, s.Filter) }

// ScoreKey names a score the way lm-eval's results do: "metric,filter", e.g.
// "exact_match,strict-match". Metric names contain no comma.
type ScoreKey string

// Filter is the report code's name for a score key: the "filter" a summary
// or comparison row is about is one (metric, filter) pair of the task.
type Filter = ScoreKey

// The GSM8K tasks' three scores that schema versions 1 and 2 had as fixed
// columns (correct_strict, correct_flexible, correct_numeric).
const (
	FilterStrict   Filter = "exact_match,strict-match"
	FilterFlexible Filter = "exact_match,flexible-extract"
	FilterNumeric  Filter = "numeric_match,strict-match"
)

// KeyOf builds a score key.
func KeyOf(metric, filter string) ScoreKey { return ScoreKey(metric + "," + filter) }

// Metric and Filter split a key.
func (k ScoreKey) Metric() string {
	m, _, _ := strings.Cut(string(k), ",")
	return m
}

func (k ScoreKey) Filter() string {
	_, f, _ := strings.Cut(string(k), ",")
	return f
}

// Stderr is lm-eval's standard-error key of k, "metric_stderr,filter": the key
// results.json, group_results.json and lm-eval's own results file hold a
// score's standard error under.
func (k ScoreKey) Stderr() string { return k.Metric() + "_stderr," + k.Filter() }

func (k ScoreKey) check() error {
	if m, f, ok := strings.Cut(string(k), ","); !ok || m == "" || f == "" {
		return fmt.Errorf("score %q: want metric,filter", string(k))
	}
	return nil
}

// Score returns the row's value under key k.
func (r *ResultRow) Score(k ScoreKey) (float64, bool) {
	for _, s := range r.Scores {
		if s.Key() == k {
			return s.Value, true
		}
	}
	return 0, false
}

// Correct reports whether the row scored 1 under k (false when absent).
func (r *ResultRow) Correct(k ScoreKey) bool {
	v, ok := r.Score(k)
	return ok && v == 1
}

// Answer returns the answer of filter f.
func (r *ResultRow) Answer(f string) (string, bool) {
	for _, a := range r.Answers {
		if a.Filter == f {
			return a.Answer, true
		}
	}
	return "", false
}

// ScoreKeys lists every score key of rows in first-seen order: the task's
// filter_list × metric_list order for the rows of one task.
func ScoreKeys(rows []ResultRow) []ScoreKey {
	var out []ScoreKey
	seen := map[ScoreKey]bool{}
	for i := range rows {
		for _, s := range rows[i].Scores {
			if k := s.Key(); !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// AnswerFilters lists every filter with an answer in rows, first-seen order.
func AnswerFilters(rows []ResultRow) []string {
	var out []string
	seen := map[string]bool{}
	for i := range rows {
		for _, a := range rows[i].Answers {
			if !seen[a.Filter] {
				seen[a.Filter] = true
				out = append(out, a.Filter)
			}
		}
	}
	return out
}

// SummaryRow is one run's mean under one score key (summary.arrow).
type SummaryRow struct {
	RunKey      string
	RunID       string
	Sampler     string
	SamplerSpec string
	Model       string
	Date        string
	Seed        int64
	Filter      Filter // the score key, "metric,filter"
	N           int32  // problems
	Repeats     int32  // responses per problem (the largest count seen)
	Accuracy    float64
	// Accuracy, SE and the interval are ClusteredAccuracyOf over this seed's
	// samples: the report's statistic, repeats averaged within a problem; SE
	// is lm-eval's with one sample per problem, NaN when N < 2.
	SE     float64
	CILow  float64 // Accuracy ± 1.96·SE, clipped to [0, 1]
	CIHigh float64
	// TruncationRate is the fraction of responses that ended at the token limit.
	TruncationRate float64
	MeanGenTokens  float64
}
