package datasets

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
	// ContinueFinal says the last message is the start of the assistant's
	// reply (gen_prefix): render without the generation prompt and end the
	// text right after it, as transformers' continue_final_message does.
	ContinueFinal bool
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
	task    *Task
	fewshot []Problem
	opts    PromptOptions
	shots   int

	mu    sync.Mutex
	turns map[int]shotTurn // rendered few-shot examples, by index
	rng   *PyRandom
	draws [][]int // draws[i] = the few-shot indexes lm-eval's sampler returns for doc i
}

// NewPrompter checks that fewshot holds enough examples for the task and
// options. fewshot are the train docs (random sampler) or the exemplars of the
// task's FewshotFile (first_n); they may be nil for a zero-shot run.
func NewPrompter(task *Task, fewshot []Problem, opts PromptOptions) (*Prompter, error) {
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

// Build returns the prompt of doc, as lm-eval's fewshot_context builds it:
// description (after the system instruction), then each shot's
// text + target_delimiter + target + fewshot_delimiter, then the doc's text
// (+ target_delimiter + gen_prefix). doc.Index must be its doc id: it selects
// the random draw.
func (p *Prompter) Build(doc Problem) (Prompt, error) {
	shots, err := p.selectShots(doc)
	if err != nil {
		return Prompt{}, err
	}
	out := Prompt{Shots: shots, Until: slices.Clone(p.task.Until), MaxNewTokens: p.task.MaxNewTokens}
	description, err := p.task.Description.RenderString(doc.Doc)
	if err != nil {
		return Prompt{}, fmt.Errorf("task %s: doc %s: %w", p.task.Name, doc.ID, err)
	}
	system := maybeDelimit(p.opts.SystemInstruction, description, p.task.FewshotDelimiter)
	question, err := p.task.Text(doc.Doc)
	if err != nil {
		return Prompt{}, fmt.Errorf("task %s: doc %s: %w", p.task.Name, doc.ID, err)
	}
	genPrefix, err := p.task.GenPrefix.RenderString(doc.Doc)
	if err != nil {
		return Prompt{}, fmt.Errorf("task %s: doc %s: %w", p.task.Name, doc.ID, err)
	}
	turns, err := p.shotTurns(shots)
	if err != nil {
		return Prompt{}, fmt.Errorf("task %s: doc %s: %w", p.task.Name, doc.ID, err)
	}
	if !p.opts.ChatTemplate {
		var b strings.Builder
		b.WriteString(system)
		for _, t := range turns {
			b.WriteString(t.text)
		}
		b.WriteString(question)
		if genPrefix != "" {
			if requiresDelimiter(question, genPrefix) {
				b.WriteString(p.task.TargetDelimiter)
			}
			b.WriteString(genPrefix)
		}
		out.Text = b.String()
		return out, nil
	}
	var msgs []Message
	if system != "" {
		msgs = append(msgs, Message{Role: "system", Content: system})
	}
	if p.shots > 0 {
		if p.opts.FewshotAsMultiturn {
			for _, t := range turns {
				msgs = append(msgs, Message{Role: "user", Content: t.q}, Message{Role: "assistant", Content: t.a})
			}
		} else {
			var b strings.Builder
			for _, t := range turns {
				b.WriteString(t.text)
			}
			msgs = append(msgs, Message{Role: "user", Content: b.String()})
		}
	}
	// append_target_question: a new user turn unless the last turn is a user's
	// (the single-turn few-shot block), which the question is glued onto.
	if n := len(msgs); n > 0 && msgs[n-1].Role == "user" && !p.opts.FewshotAsMultiturn {
		msgs[n-1].Content += question
	} else {
		msgs = append(msgs, Message{Role: "user", Content: question})
	}
	if genPrefix != "" {
		// lm-eval >= 0.4.10: the prefix is the start of the assistant's
		// reply, which the chat template continues (continue_final_message).
		msgs = append(msgs, Message{Role: "assistant", Content: genPrefix})
		out.ContinueFinal = true
	}
	out.Messages = msgs
	return out, nil
}

// shotTurn is one few-shot example: its question and answer, and the plain
// text lm-eval's build_qa_turn makes of them.
type shotTurn struct{ q, a, text string }

// shotTurns renders the shots with fewshot_config's templates and delimiters.
// A shot with an empty target contributes its text only, as in lm-eval.
func (p *Prompter) shotTurns(shots []int) ([]shotTurn, error) {
	out := make([]shotTurn, 0, len(shots))
	for _, i := range shots {
		t, err := p.shotTurn(i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// shotTurn renders few-shot example i once; every prompt that uses it reuses
// the text (first_n tasks put the same shots in front of every doc).
func (p *Prompter) shotTurn(i int) (shotTurn, error) {
	p.mu.Lock()
	t, ok := p.turns[i]
	p.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := p.renderShot(i)
	if err != nil {
		return shotTurn{}, err
	}
	p.mu.Lock()
	if p.turns == nil {
		p.turns = map[int]shotTurn{}
	}
	p.turns[i] = t
	p.mu.Unlock()
	return t, nil
}

func (p *Prompter) renderShot(i int) (shotTurn, error) {
	fc := &p.task.Fewshot
	d := p.fewshot[i].Doc
	q, err := p.task.shotText(d)
	if err != nil {
		return shotTurn{}, fmt.Errorf("few-shot example %d: %w", i, err)
	}
	a, err := p.task.shotTarget(d)
	if err != nil {
		return shotTurn{}, fmt.Errorf("few-shot example %d: %w", i, err)
	}
	gp, err := fc.GenPrefix.RenderString(d)
	if err != nil {
		return shotTurn{}, fmt.Errorf("few-shot example %d: %w", i, err)
	}
	t := shotTurn{q: q}
	switch {
	case a != "":
		if gp == "" || requiresDelimiter(q, gp) {
			q += fc.TargetDelimiter
		}
		t.a = maybeDelimit(gp, a, " ")
		t.text = q + t.a + fc.FewshotDelimiter
	case gp != "":
		if requiresDelimiter(q, gp) {
			q += fc.TargetDelimiter
		}
		t.a, t.text = gp, q+gp
	default:
		t.text = q
	}
	return t, nil
}

// maybeDelimit is lm-eval's maybe_delimit: join with delimiter unless either
// side is empty or has whitespace at the seam.
func maybeDelimit(prefix, suffix, delimiter string) string {
	switch {
	case prefix == "":
		return suffix
	case suffix == "":
		return prefix
	case requiresDelimiter(prefix, suffix):
		return prefix + delimiter + suffix
	}
	return prefix + suffix
}

// requiresDelimiter is lm-eval's requires_delimiter: neither side has
// whitespace (Python str.isspace) at the seam.
func requiresDelimiter(prefix, suffix string) bool {
	if prefix == "" || suffix == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prefix)
	first, _ := utf8.DecodeRuneInString(suffix)
	return !pyIsSpace(last) && !pyIsSpace(first)
}

// pyIsSpace is Python's str.isspace for one character.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

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
	switch p.task.Fewshot.Sampler {
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
		return nil, fmt.Errorf("task %s: unknown few-shot sampler %q", p.task.Name, p.task.Fewshot.Sampler)
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
func sameDoc(a, b Problem) bool { return reflect.DeepEqual(a.Doc, b.Doc) }

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
