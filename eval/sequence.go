package eval

import (
	"fmt"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// preparedProblem is a problem with its prompt tokenized once for every job.
type preparedProblem struct {
	Problem
	Index     int
	IDs       []int32
	Hash      string
	Truncated bool // the prompt was cut on the left to fit max_seq_len
}

// workItem is one (job, problem) pair waiting for a slot.
type workItem struct {
	job     Job
	problem *preparedProblem
	sampler SamplerFactory
}

// stopMatcher finds the first stop string in growing text. It only rescans the tail
// that a new piece could complete, so long generations cost O(new text) per token.
type stopMatcher struct {
	stops   []string
	longest int
}

func newStopMatcher(stops []string) stopMatcher {
	m := stopMatcher{stops: stops}
	for _, s := range stops {
		m.longest = max(m.longest, len(s))
	}
	return m
}

// find returns the index of the earliest stop in text that ends after prevLen, or -1.
func (m stopMatcher) find(text string, prevLen int) int {
	if len(m.stops) == 0 {
		return -1
	}
	from := max(0, prevLen-m.longest+1)
	best := -1
	for _, s := range m.stops {
		if i := strings.Index(text[from:], s); i >= 0 && (best < 0 || from+i < best) {
			best = from + i
		}
	}
	return best
}

// sequence is one live work item in a slot: its tokens, its text so far, its own
// sampler state and RNG, and its trace.
type sequence struct {
	item      workItem
	slot      int
	tokens    []int32 // prompt followed by generated ids
	promptLen int
	fed       int  // tokens already in the slot's cache
	feeding   bool // the prompt is being fed (any cached prefix taken)
	chooser   TokenChooser
	view      *engine.AttnView // the sampler's attention view; nil: the engine's default
	need      *engine.Need     // what its sampler reads of the candidates; nil: all
	stream    TextStream
	text      strings.Builder
	// scored decodes every generated id with special tokens skipped (nil when the
	// tokenizer cannot); response is its text cut at the first stop, once finished.
	scored     TextStream
	scoredText strings.Builder
	response   string
	trace      []reports.TokenRecord
	started    time.Time
	finish     string
	cut        int // length of the response once a stop string was found

	// promptStats: the sampler's first token reads the prompt-averaged metrics,
	// so the prompt is fed with engine.Input.PromptStats.
	promptStats bool
}

// limits are the per-run bounds every sequence obeys.
type limits struct {
	maxNew      int
	maxSeqLen   int
	stops       stopMatcher
	eos         map[int32]bool
	firstArgmax bool
}

// A sequence whose prompt is fully fed takes one token a step: choose picks it
// (the scheduler runs the sequences' choices side by side, chooseAll), apply
// records it and decides whether the sequence is finished.

// choice is a sequence's token for one step, chosen before any sequence applies
// its own (choose reads only the sequence's sampler, RNG and output).
type choice struct {
	d          sampler.Decision
	usedPrompt bool // the rules read the prompt-averaged metrics
	err        error
}

// choose picks the sequence's next token from its step output.
func (s *sequence) choose(out *engine.Output, lim *limits) choice {
	var c choice
	var err error
	if lim.firstArgmax && len(s.tokens) == s.promptLen {
		if c.d, err = sampler.FirstTokenArgmax(&out.Dist); err != nil {
			c.err = fmt.Errorf("problem %s: first token: %w", s.item.problem.ID, err)
		}
		return c
	}
	if s.promptStats && len(s.tokens) == s.promptLen {
		c.d, err = s.chooseFirst(out)
		c.usedPrompt = true
	} else {
		c.d, err = s.chooser.Choose(&out.Dist, &out.Attn, s.tokens, s.promptLen)
	}
	if err != nil {
		c.err = fmt.Errorf("problem %s step %d: sample: %w", s.item.problem.ID, len(s.tokens)-s.promptLen, err)
	}
	return c
}

// apply records a chosen token and decides whether the sequence is finished.
func (s *sequence) apply(out *engine.Output, c choice, lim *limits) error {
	d, usedPrompt := c.d, c.usedPrompt
	s.tokens = append(s.tokens, d.Token)
	if s.scored != nil {
		piece, err := s.scored.Next(d.Token)
		if err != nil {
			return fmt.Errorf("problem %s: decode token %d: %w", s.item.problem.ID, d.Token, err)
		}
		s.scoredText.WriteString(piece)
	}
	step := reports.TokenRecord{
		Decision: d, Entropy: out.Dist.Entropy, Varentropy: out.Dist.Varentropy,
		AttnEntropy: out.Attn.Entropy, AttnVarentropy: out.Attn.Varentropy,
		Agreement: out.Attn.Agreement, InteractionStrength: out.Attn.InteractionStrength,
		VocabTailMass: out.Dist.TailMass,
	}
	if usedPrompt {
		// The trace shows the metrics the rules read, as the port's metrics_data does.
		p := &out.Prompt
		step.Entropy, step.Varentropy, step.AttnEntropy = p.LogitsEntropy, p.LogitsVarentropy, p.AttnEntropy
		step.AttnVarentropy, step.Agreement, step.InteractionStrength = p.AttnVarentropy, p.Agreement, p.InteractionStrength
	}
	gen := len(s.tokens) - s.promptLen
	switch {
	case lim.eos[d.Token]:
		s.finish = FinishEOS
	default:
		piece, err := s.stream.Next(d.Token)
		if err != nil {
			return fmt.Errorf("problem %s: decode token %d: %w", s.item.problem.ID, d.Token, err)
		}
		step.Text = piece
		prev := s.text.Len()
		s.text.WriteString(piece)
		if i := lim.stops.find(s.text.String(), prev); i >= 0 {
			s.finish, s.cut = FinishStop, i
		}
	}
	s.trace = append(s.trace, step)
	if s.finish == "" && (gen >= lim.maxNew || len(s.tokens) >= lim.maxSeqLen) {
		s.finish = FinishLength
	}
	if s.finish == FinishEOS || s.finish == FinishLength {
		if err := s.flush(lim); err != nil {
			return err
		}
	}
	if s.finish != "" && s.scored != nil {
		return s.finishScored(lim)
	}
	return nil
}

// finishScored sets the response as lm-eval's HF backend makes it: every
// generated id decoded with special tokens skipped, then cut at the earliest stop
// string (postprocess_generated_text).
func (s *sequence) finishScored(lim *limits) error {
	rest, err := s.scored.Flush()
	if err != nil {
		return fmt.Errorf("problem %s: decode the held-back tail: %w", s.item.problem.ID, err)
	}
	s.scoredText.WriteString(rest)
	s.response = s.scoredText.String()
	if i := lim.stops.find(s.response, 0); i >= 0 {
		s.response = s.response[:i]
	}
	return nil
}

// flush appends the text the stream still holds back when generation ends on EOS
// or the token limit, so the response equals a decode of all generated tokens (a
// character cut by the limit becomes U+FFFD, as in lm-eval) rather than losing its
// bytes. The text is credited to the last token, so the trace still joins to it.
func (s *sequence) flush(lim *limits) error {
	rest, err := s.stream.Flush()
	if err != nil {
		return fmt.Errorf("problem %s: decode the held-back tail: %w", s.item.problem.ID, err)
	}
	if rest == "" {
		return nil
	}
	prev := s.text.Len()
	s.text.WriteString(rest)
	s.trace[len(s.trace)-1].Text += rest
	if i := lim.stops.find(s.text.String(), prev); i >= 0 {
		s.finish, s.cut = FinishStop, i
	}
	return nil
}

// record is the journal entry of a finished sequence.
func (s *sequence) record() Record {
	resp := s.text.String()
	switch {
	case s.scored != nil:
		resp = s.response
	case s.finish == FinishStop:
		resp = resp[:s.cut]
	}
	p := s.item.problem
	return Record{
		ItemKey:      s.item.job.Item(p.Index),
		ProblemID:    p.ID,
		PromptHash:   p.Hash,
		PromptTokens: s.promptLen,
		Response:     resp,
		GenTokens:    len(s.tokens) - s.promptLen,
		FinishReason: s.finish,
		LatencyMS:    float64(time.Since(s.started).Microseconds()) / 1000,
		Trace:        s.trace,
	}
}

// chooseFirst picks the first token of a sequence whose sampler reads the
// prompt-averaged metrics.
func (s *sequence) chooseFirst(out *engine.Output) (sampler.Decision, error) {
	pc, ok := s.chooser.(PromptChooser)
	if !ok {
		return sampler.Decision{}, fmt.Errorf("sampler %T reads prompt-averaged metrics but cannot take them", s.chooser)
	}
	if out.Prompt.Positions != s.promptLen {
		return sampler.Decision{}, fmt.Errorf("the engine averaged the first token's metrics over %d positions of a %d-token prompt",
			out.Prompt.Positions, s.promptLen)
	}
	return pc.ChooseFirst(&out.Dist, &out.Attn, &out.Prompt, s.tokens, s.promptLen)
}
