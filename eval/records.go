package eval

import (
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/reports"
)

// Finish reasons, as results.arrow and samples.jsonl spell them.
const (
	FinishStop   = "stop"
	FinishEOS    = "eos"
	FinishLength = "length"
)

// Record is one finished work item as the journal keeps it: what the model generated,
// not how it was graded, so rescoring and merging rebuild every file from records.
type Record struct {
	ItemKey
	ProblemID    string                `json:"problem_id"`
	PromptHash   string                `json:"prompt_hash"`
	PromptTokens int                   `json:"prompt_tokens"`
	Response     string                `json:"response"`
	GenTokens    int                   `json:"gen_tokens"`
	FinishReason string                `json:"finish_reason"`
	LatencyMS    float64               `json:"latency_ms"`
	Trace        []reports.TokenRecord `json:"trace"`
	// Scores are a scored task's request results, in request order.
	Scores []loglik.Result `json:"loglik,omitempty"`
}
