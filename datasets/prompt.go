package datasets

import (
	"fmt"
	"slices"
	"sync"
)

// Message is one chat turn. Rendering it with a model's chat template is the
// tokenizer's job; this package only decides the turns.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// PromptOptions are the per-run choices lm-eval takes on its command line.
type PromptOptions struct {
	// NumFewshot overrides the task's shot count when non-nil (--num_fewshot).
	NumFewshot *int
	// ChatTemplate returns Messages instead of Text (--apply_chat_template).
	ChatTemplate bool
	// FewshotAsMultiturn makes each shot a user/assistant pair instead of
	// putting them all in the first user turn (--fewshot_as_multiturn).
	FewshotAsMultiturn bool
	// SystemInstruction is prepended (--system_instruction): as a system
	// message with a chat template, else glued to the front of the text as
	// lm-eval does (no separator).
	SystemInstruction string
	// FewshotFromTestSplit says the few-shot docs are the split being
	// evaluated: lm-eval then draws one extra and drops the doc itself.
	FewshotFromTestSplit bool
}

// Prompt is what the engine is asked to continue.
type Prompt struct {
	// Text is the plain prompt (set unless ChatTemplate).
	Text string
	// Messages is the conversation to render with the chat template (set when
	// ChatTemplate); the template must add the assistant generation prompt.
	Messages []Message
	// Shots are the indexes, into the few-shot docs, of the examples used.
	Shots []int
	// Until are the task's stop strings; add the tokenizer's EOS with StopStrings.
	Until        []string
	MaxNewTokens int
}

// StopStrings returns Until plus eos when it is not already there (lm-eval's
// handle_stop_sequences). An empty eos adds nothing.
func (p Prompt) StopStrings(eos string) []string {
	out := slices.Clone(p.Until)
	if eos != "" && !slices.Contains(out, eos) {
		out = append(out, eos)
	}
	return out
}

// Prompter builds the prompts of one task for one run. It is safe for
// concurrent use; with random shots, the shots of doc i are the i-th draw of
// the seeded generator whatever order docs are asked for in, so a resumed or
// sharded run sees the same prompts as lm-eval running docs 0..n-1 in order.
type Prompter struct {
	task    Task
	fewshot []Problem
	opts    PromptOptions
	shots   int

	mu    sync.Mutex
	rng   *PyRandom
	draws [][]int // draws[i] = the few-shot indexes lm-eval's sampler returns for doc i
}

// NewPrompter checks that fewshot holds enough examples for the task and
// options. fewshot are the train docs (random sampler) or the exemplars of the
// task's FewshotFile (first_n); they may be nil for a zero-shot run.
func NewPrompter(task Task, fewshot []Problem, opts PromptOptions) (*Prompter, error) {
	n := task.NumFewshot
	if opts.NumFewshot != nil {
		n = *opts.NumFewshot
	}
	if n < 0 {
		return nil, fmt.Errorf("task %s: num_fewshot %d is negative", task.Name, n)
	}
	need := n
	if opts.FewshotFromTestSplit {
		need++
	}
	if n > 0 && len(fewshot) < need {
		return nil, fmt.Errorf("task %s: %d-shot needs %d few-shot examples, have %d", task.Name, n, need, len(fewshot))
	}
	return &Prompter{task: task, fewshot: fewshot, opts: opts, shots: n, rng: NewPyRandom(task.FewshotSeed)}, nil
}

// NumFewshot is the shot count in effect.
func (p *Prompter) NumFewshot() int { return p.shots }

// Build returns the prompt of doc. doc.Index must be its doc id: it selects the
// random draw.
func (p *Prompter) Build(doc Problem) (Prompt, error) {
	shots, err := p.selectShots(doc)
	if err != nil {
		return Prompt{}, err
	}
	out := Prompt{Shots: shots, Until: slices.Clone(p.task.Until), MaxNewTokens: p.task.MaxNewTokens}
	question := p.task.DocToText(doc)
	if !p.opts.ChatTemplate {
		// lm-eval: system prompt + get_context (shots) + doc_to_text(doc).
		out.Text = p.opts.SystemInstruction + p.context(shots) + question
		return out, nil
	}
	var msgs []Message
	if p.opts.SystemInstruction != "" {
		msgs = append(msgs, Message{Role: "system", Content: p.opts.SystemInstruction})
	}
	if p.shots > 0 {
		if p.opts.FewshotAsMultiturn {
			for _, i := range shots {
				s := p.fewshot[i]
				msgs = append(msgs,
					Message{Role: "user", Content: p.task.DocToText(s)},
					Message{Role: "assistant", Content: p.task.DocToTarget(s)})
			}
		} else {
			msgs = append(msgs, Message{Role: "user", Content: p.context(shots)})
		}
	}
	// append_target_question: a new user turn unless the last turn is a user's
	// (the single-turn few-shot block), which the question is glued onto.
	if n := len(msgs); n > 0 && msgs[n-1].Role == "user" && !p.opts.FewshotAsMultiturn {
		msgs[n-1].Content += question
	} else {
		msgs = append(msgs, Message{Role: "user", Content: question})
	}
	out.Messages = msgs
	return out, nil
}

// context is lm-eval's ContextSampler.get_context: each shot is
// text + target_delimiter + target + fewshot_delimiter (a shot with an empty
// target contributes its text only).
func (p *Prompter) context(shots []int) string {
	var b []byte
	for _, i := range shots {
		s := p.fewshot[i]
		b = append(b, p.task.DocToText(s)...)
		if t := p.task.DocToTarget(s); t != "" {
			b = append(b, p.task.TargetDelimiter...)
			b = append(b, t...)
			b = append(b, p.task.FewshotDelimiter...)
		}
	}
	return string(b)
}

// selectShots draws like lm-eval: sample n (n+1 from the test split), drop the
// doc itself, keep the first n.
func (p *Prompter) selectShots(doc Problem) ([]int, error) {
	if p.shots == 0 {
		return nil, nil
	}
	n := p.shots
	if p.opts.FewshotFromTestSplit {
		n++
	}
	var drawn []int
	switch p.task.Sampler {
	case SamplerFirstN:
		drawn = make([]int, n)
		for i := range drawn {
			drawn[i] = i
		}
	case SamplerRandom:
		var err error
		if drawn, err = p.randomDraw(doc.Index, n); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("task %s: unknown few-shot sampler %q", p.task.Name, p.task.Sampler)
	}
	out := make([]int, 0, p.shots)
	for _, i := range drawn {
		if p.opts.FewshotFromTestSplit && sameDoc(p.fewshot[i], doc) {
			continue
		}
		if len(out) < p.shots {
			out = append(out, i)
		}
	}
	return out, nil
}

// sameDoc is lm-eval's `x != doc` (dict equality on the doc's fields).
func sameDoc(a, b Problem) bool { return a.Question == b.Question && a.Answer == b.Answer }

// maxReplayDocs bounds the replay of the generator for one doc id; GSM8K has
// 1319 test docs, and a garbage Index must not spin for hours.
const maxReplayDocs = 10_000_000

// randomDraw returns the draw lm-eval makes for doc index, replaying the
// generator from doc 0 on first use. lm-eval >= v0.4.10 samples once per doc in
// every mode (fewshot_context builds plain, single-turn and multi-turn chat
// prompts from one sampler.sample call; the double draw of the older
// get_chat_context is gone).
func (p *Prompter) randomDraw(index, n int) ([]int, error) {
	if index < 0 || index >= maxReplayDocs {
		return nil, fmt.Errorf("task %s: doc index %d out of range for random few-shot draws", p.task.Name, index)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.draws) <= index {
		s, err := p.rng.Sample(len(p.fewshot), n)
		if err != nil {
			return nil, fmt.Errorf("task %s: draw few-shot examples: %w", p.task.Name, err)
		}
		p.draws = append(p.draws, s)
	}
	return p.draws[index], nil
}
