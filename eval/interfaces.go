package eval

import (
	"context"

	"github.com/entropix-eval/entropix-eval/engine"
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

// Decision is what a sampler chose at one step and the parameters it used, which
// the trace records.
type Decision struct {
	Token       int32
	Strategy    string
	Temperature float64
	TopK        int
	TopP        float64
	MinP        float64
	// LogProb is the chosen token's natural-log probability at temperature 1.
	LogProb float64
}

// TokenChooser picks the tokens of one sequence. It owns that sequence's sampler
// state and RNG stream, so its choices do not depend on what else is batched with it.
type TokenChooser interface {
	// Choose picks the next token. history is the sequence so far: the prompt ids
	// followed by the generated ones; promptLen says where generation began.
	Choose(dist *engine.Dist, attn *engine.AttnStats, history []int32, promptLen int) (Decision, error)
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

// attnViewOf is f's view, or nil for the engine's default.
func attnViewOf(f SamplerFactory) *engine.AttnView {
	if v, ok := f.(AttnViewer); ok {
		view := v.AttnView()
		return &view
	}
	return nil
}

// SamplerResolver builds a sampler from the user's spec, rejecting bad parameters.
type SamplerResolver func(spec SamplerSpec) (SamplerFactory, error)

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
}

// TaskSpec is what the runner needs of a task besides its prompts.
type TaskSpec struct {
	Name         string   `json:"name"`
	Stops        []string `json:"stops"`
	MaxNewTokens int      `json:"max_new_tokens"`
}

// Grade is the extraction and scoring of one response.
type Grade struct {
	ExtractedStrict   string
	ExtractedFlexible string
	CorrectStrict     bool
	CorrectFlexible   bool
	CorrectNumeric    bool
}

// Grader extracts the answer from a response and scores it against the target.
type Grader interface {
	Grade(task, response, target string) (Grade, error)
}

// ArrowWriter writes the Arrow files of a run directory atomically.
type ArrowWriter interface {
	WriteResults(path string, rows []ResultRow) error
	WriteTraces(path string, rows []TraceRow) error
}
