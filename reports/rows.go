package reports

import "fmt"

// Column names of traces.arrow. Shared names (run_id, problem_id, repeat) have one
// constant used by every schema that carries them.
const (
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
)

// Column names of results.arrow (besides the shared ones above).
const (
	ColSampler           = "sampler"
	ColSeed              = "seed"
	ColPromptHash        = "prompt_hash"
	ColTarget            = "target"
	ColResponse          = "response"
	ColExtractedStrict   = "extracted_strict"
	ColExtractedFlexible = "extracted_flexible"
	ColCorrectStrict     = "correct_strict"
	ColCorrectFlexible   = "correct_flexible"
	ColCorrectNumeric    = "correct_numeric"
	ColPromptTokens      = "prompt_tokens"
	ColGenTokens         = "gen_tokens"
	ColFinishReason      = "finish_reason"
	ColLatencyMS         = "latency_ms"
)

// Column names of summary.arrow and comparisons.arrow.
const (
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

// TraceRow is one generated token (traces.arrow).
type TraceRow struct {
	RunID     string
	Task      string
	ProblemID int32 // dataset doc id (row index)
	Repeat    int32 // 0-based repeat index of the problem within the run
	Step      int32 // 0-based index of the token within the response
	TokenID   int32
	TokenText string // decoded piece, for display; invalid UTF-8 is stored as U+FFFD
	Strategy  string // the sampler's decision label, e.g. "argmax", "branch"

	// Full-vocabulary logit statistics at temperature 1 (bits, bits²).
	Entropy    float64
	Varentropy float64
	// Metric-layer attention statistics; absent when the run did not compute them.
	AttnEntropy         Opt[float64]
	AttnVarentropy      Opt[float64]
	Agreement           Opt[float64]
	InteractionStrength Opt[float64]

	// Sampling parameters the decision used; absent when its strategy has none.
	Temperature float64 // 0 means greedy
	TopK        Opt[int32]
	TopP        Opt[float64]
	MinP        Opt[float64]

	LogProb  float64 // natural log probability of the token at temperature 1
	TailMass float64 // probability mass outside the engine's top-K candidates
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

// ResultRow is one scored response: one per run × problem × repeat (results.arrow).
type ResultRow struct {
	RunID             string
	Sampler           string
	Seed              int64
	ProblemID         int32
	Repeat            int32
	PromptHash        string // hex digest of the exact prompt text (eval defines the hash)
	Target            string
	Response          string
	ExtractedStrict   string // "[invalid]" when nothing matched, as lm-eval
	ExtractedFlexible string
	CorrectStrict     bool
	CorrectFlexible   bool
	CorrectNumeric    bool
	PromptTokens      int32
	GenTokens         int32
	FinishReason      FinishReason
	LatencyMS         float64
}

// Filter names one of the three scores of a response.
type Filter string

const (
	FilterStrict   Filter = "strict"
	FilterFlexible Filter = "flexible"
	FilterNumeric  Filter = "numeric"
)

// Filters lists every filter in report order.
var Filters = []Filter{FilterStrict, FilterFlexible, FilterNumeric}

func (f Filter) check() error {
	switch f {
	case FilterStrict, FilterFlexible, FilterNumeric:
		return nil
	}
	return fmt.Errorf("filter %q: want strict, flexible or numeric", string(f))
}

// Correct returns the row's score under filter f (false for an unknown filter).
func (r *ResultRow) Correct(f Filter) bool {
	switch f {
	case FilterStrict:
		return r.CorrectStrict
	case FilterFlexible:
		return r.CorrectFlexible
	case FilterNumeric:
		return r.CorrectNumeric
	}
	return false
}

// SummaryRow is one run's accuracy under one filter (summary.arrow).
type SummaryRow struct {
	RunID    string
	Sampler  string
	Seed     int64
	Filter   Filter
	N        int32 // problems
	Repeats  int32 // responses per problem (the largest count seen)
	Accuracy float64
	SE       float64 // lm-eval's standard error; NaN when N < 2
	CILow    float64 // 95% Wilson score interval
	CIHigh   float64
	// TruncationRate is the fraction of responses that ended at the token limit.
	TruncationRate float64
	MeanGenTokens  float64
}
