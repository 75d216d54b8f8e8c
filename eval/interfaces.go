package eval

import (
	"context"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// The runner's view of its collaborators. They are deliberately narrow: the CLI wires
// the concrete engine, tokenizer and sampler packages in, and tests use fakes.

// Engine is the part of engine.Engine the scheduler drives.
type Engine interface {
	Options() engine.Options
	Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error
	Free(slot int)
}

// EngineOpener starts the engine of one worker on its device.
type EngineOpener func(ctx context.Context, worker int, device string) (Engine, func() error, error)

// Tokenizer encodes prompts and decodes generated ids incrementally.
type Tokenizer interface {
	// Encode returns the ids of a whole prompt, special tokens (BOS) included as the
	// model expects them.
	Encode(text string) ([]int32, error)
	// NewStream starts an incremental decoder for one sequence.
	NewStream() TextStream
}

// ScoredStreamer is a Tokenizer that also decodes the text lm-eval scores: its
// HF backend decodes the generated ids with skip_special_tokens=True (an EOS or
// chat-turn token leaves no text), while stopping is decided on text that keeps
// them. Without it, the response is the stream's text.
type ScoredStreamer interface {
	NewScoredStream() TextStream
}

// TextStream turns generated ids into text one at a time; Next returns the text the id
// completes (possibly empty while a multi-byte character is unfinished).
type TextStream interface {
	Next(id int32) (string, error)
	// Flush returns what is still held back (an unfinished character at the end of
	// generation), decoded as the tokenizer's Decode would (U+FFFD for a cut byte run).
	Flush() (string, error)
}

// TokenChooser picks the tokens of one sequence. It owns that sequence's sampler
// state and RNG stream, so its choices do not depend on what else is batched with it.
type TokenChooser interface {
	// Choose picks the next token. history is the sequence so far: the prompt ids
	// followed by the generated ones; promptLen says where generation began.
	Choose(dist *engine.Dist, attn *engine.AttnStats, history []int32, promptLen int) (sampler.Decision, error)
}

// PromptChooser is a TokenChooser whose first token's rules read the metrics
// averaged over every prompt position (the SmolLM port's faithful first token);
// its factory is a PromptAverager, so the engine computes them for its prompts.
type PromptChooser interface {
	// ChooseFirst picks the first generated token; prompt is the engine's
	// prompt-averaged metrics, dist and attn the last prompt position's outputs.
	ChooseFirst(dist *engine.Dist, attn *engine.AttnStats, prompt *engine.PromptStats, history []int32, promptLen int) (sampler.Decision, error)
}

// SamplerFactory is one configured sampler of a sweep.
type SamplerFactory interface {
	// Describe is the sampler with every parameter resolved, for the manifest.
	Describe() string
	// NewSequence starts a chooser whose RNG stream is derived from (seed, problem
	// id, repeat) and nothing else.
	NewSequence(seed uint64, problemID string, repeat int) TokenChooser
}

// AttnViewer is a SamplerFactory whose sampler reads attention statistics in a view
// of its own (each Entropix variant: the KV cache its upstream computes them over);
// the engine computes that sampler's sequences in it. Samplers without one get the
// sweep's attn_mode.
type AttnViewer interface {
	AttnView() engine.AttnView
}

// PromptAverager is a SamplerFactory that says whether its sequences' first token
// reads the prompt-averaged metrics (engine.Input.PromptStats).
type PromptAverager interface {
	PromptMetrics() bool
}

// wantsPromptStats tells whether f's prompts must be fed with Input.PromptStats.
func wantsPromptStats(f SamplerFactory) bool {
	p, ok := f.(PromptAverager)
	return ok && p.PromptMetrics()
}

// attnViewOf is f's view, or nil for the engine's default.
func attnViewOf(f SamplerFactory) *engine.AttnView {
	if v, ok := f.(AttnViewer); ok {
		view := v.AttnView()
		return &view
	}
	return nil
}

// candidateNeedOf is how much of each step's candidate list f's sampler reads, or
// nil (everything).
func candidateNeedOf(f SamplerFactory) *engine.Need {
	if n, ok := f.(sampler.CandidateNeeder); ok {
		return n.CandidateNeed()
	}
	return nil
}

// SamplerResolver builds a sampler from the user's spec, rejecting bad parameters.
type SamplerResolver func(spec sampler.Spec) (SamplerFactory, error)

// Problem is one prepared benchmark item: the full prompt text (shots and chat
// template applied) and the reference the grader compares against.
type Problem struct {
	ID       string
	Question string
	// Answer is the dataset's worked solution, kept for samples.jsonl's doc as
	// lm-eval writes it.
	Answer string
	Prompt string
	Target string
	// Targets are a multiple-target task's references (lm-eval's list
	// doc_to_target): a response matching any of them scores.
	Targets []string
	// Doc is the dataset row (every column), for filters that read it
	// (multi_choice_regex reads "choices").
	Doc datasets.Doc
	// DocColumns is Doc's key order, the dataset's column order (nested
	// structs' included), which lm-eval's doc and doc_hash keep.
	DocColumns datasets.Fields
	// Scoring holds the loglikelihood requests of a task that scores
	// continuations (nil for generate_until).
	Scoring *loglik.Doc
}

// Reference is what a doc's responses are graded against: the doc (filters
// and process_results read it, in its column order) and its target or, for
// a multiple-target task, targets.
type Reference struct {
	Doc     datasets.Doc
	Columns []string
	Target  string
	Targets []string
}

// Grade is one response's answer per filter and score per (metric, filter).
// Values are the metrics aggregated over the corpus (bleu's [reference,
// response]; IFEval's instruction-level lists, a Python aggregation's): kept per doc as Python returned them, they exist
// as a score only aggregated over docs (corpusAggregates), so they are not
// among Scores, which the report pairs problem by problem.
//
// Raw are scores whose value Python returned as a bool or an int: the
// samples files show True and 1 as lm-eval logs them (not 1.0), the
// statistics read Scores' 1.
type Grade struct {
	Answers []reports.Answer
	Scores  []reports.Score
	Values  []DocValue
	Raw     []DocValue
}

// Grader filters and scores the responses of one doc against its target:
// responses are the doc's repeats in order when the task's filters see them
// together (TaskSpec.Repeats > 1), else one response. It returns one Grade
// per response.
type Grader interface {
	Grade(task TaskSpec, ref Reference, responses []string) ([]Grade, error)
}

// ArrowWriter writes the Arrow files of a run directory atomically, each
// carrying the run's provenance in its schema metadata.
type ArrowWriter interface {
	WriteResults(path string, rows []reports.ResultRow, p reports.Provenance) error
	WriteTraces(path string, rows []reports.TraceRow, p reports.Provenance) error
}
