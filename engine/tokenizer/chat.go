package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// Message is one chat turn, as in Hugging Face's apply_chat_template.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatTemplate is a compiled tokenizer_config.json chat_template (Jinja).
type ChatTemplate struct {
	source   string
	tpl      *exec.Template
	bos, eos string
	file     string // named in errors
}

// Limits on one render. tokenizer_config.json comes from the internet, and Jinja
// can loop and print without end; real chat templates stay far below these.
var (
	// MaxChatOutputBytes bounds a rendered prompt.
	MaxChatOutputBytes = MaxScanBytes
	// maxRange is Jinja's sandbox MAX_RANGE (transformers renders chat templates
	// in an ImmutableSandboxedEnvironment, which refuses larger ranges too).
	maxRange = 100_000
	// maxRangeSteps bounds the elements all range() calls of one render produce
	// (nested loops multiply), the render's step limit.
	maxRangeSteps = 200_000
	// chatRenderTimeout bounds one render's wall time.
	chatRenderTimeout = 10 * time.Second
)

// errRenderLimit marks a render stopped by one of the limits.
var errRenderLimit = errors.New("chat template exceeded a rendering limit")

// ErrNoChatTemplate is returned when tokenizer_config.json has no chat_template.
var ErrNoChatTemplate = errors.New("tokenizer: no chat_template in tokenizer_config.json")

// errTemplateRaised marks a template's own raise_exception call.
var errTemplateRaised = errors.New("chat template raised an exception")

// ChatTemplate compiles the tokenizer's chat template, with the BOS and EOS
// strings of tokenizer_config.json.
func (t *Tokenizer) ChatTemplate() (*ChatTemplate, error) {
	if t.chatTemplate == "" {
		return nil, ErrNoChatTemplate
	}
	c, err := NewChatTemplate(t.chatTemplate, t.specialTokens.BOS, t.specialTokens.EOS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.configPath, err)
	}
	c.file = t.configPath
	return c, nil
}

// Source is the template's Jinja text, as the checkpoint ships it.
func (c *ChatTemplate) Source() string { return c.source }

// NewChatTemplate compiles Jinja source with the given bos_token and eos_token.
// It uses the Jinja settings transformers uses (trim_blocks, lstrip_blocks).
func NewChatTemplate(source, bos, eos string) (*ChatTemplate, error) {
	cfg := config.New()
	cfg.TrimBlocks = true
	cfg.LeftStripBlocks = true
	const name = "chat_template"
	fs, err := loaders.NewFileSystemLoader("")
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	loader, err := loaders.NewShiftedLoader(name, strings.NewReader(source), fs)
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	tpl, err := exec.NewTemplate(name, cfg, loader, gonja.DefaultEnvironment)
	if err != nil {
		return nil, fmt.Errorf("chat template: unsupported or invalid Jinja: %s", shortError(err, source))
	}
	if cycle := recursiveMacros(source); cycle != "" {
		return nil, fmt.Errorf("chat template: recursive macro (%s): refused, as gonja would recurse without bound and crash the process", cycle)
	}
	return &ChatTemplate{source: source, tpl: tpl, bos: bos, eos: eos}, nil
}

// Render renders messages; addGenerationPrompt appends the assistant header so
// the model answers next. A template's raise_exception(...) becomes an error, and
// so does a render past the output, range or time limits; errors name the file.
func (c *ChatTemplate) Render(messages []Message, addGenerationPrompt bool) (string, error) {
	out, err := c.render(messages, addGenerationPrompt)
	if err != nil && c.file != "" {
		return "", fmt.Errorf("%s: %w", c.file, err)
	}
	return out, err
}

func (c *ChatTemplate) render(messages []Message, addGenerationPrompt bool) (string, error) {
	msgs := make([]map[string]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	lim := &renderLimits{}
	ctx := exec.NewContext(map[string]any{
		"messages":              msgs,
		"add_generation_prompt": addGenerationPrompt,
		"bos_token":             c.bos,
		"eos_token":             c.eos,
		"raise_exception": func(msg string) (string, error) {
			return "", fmt.Errorf("%w: %s", errTemplateRaised, msg)
		},
		"range": lim.rangeFunc,
	})
	out := &limitedBuffer{lim: lim}
	done := make(chan error, 1)
	go func() { done <- c.tpl.Execute(out, ctx) }()
	timer := time.NewTimer(chatRenderTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		// The render goroutine stops at its next write or range() call.
		lim.stop.Store(true)
		return "", fmt.Errorf("chat template: %w: rendering took more than %v", errRenderLimit, chatRenderTimeout)
	}
	if err != nil {
		switch {
		case errors.Is(err, errTemplateRaised):
			return "", fmt.Errorf("chat template: %s", raisedMessage(err))
		case errors.Is(err, errRenderLimit):
			return "", fmt.Errorf("chat template: %s", limitMessage(err))
		}
		return "", fmt.Errorf("chat template: unsupported or invalid Jinja: %s", shortError(err, c.source))
	}
	return out.String(), nil
}

// renderLimits are one render's counters.
type renderLimits struct {
	steps int
	stop  atomic.Bool
}

// rangeFunc is Jinja's range with the sandbox's MAX_RANGE and the render's step
// budget; it returns a list (gonja's own range feeds a channel from a goroutine
// that leaks when a loop breaks early).
func (l *renderLimits) rangeFunc(_ *exec.Evaluator, params *exec.VarArgs) ([]int, error) {
	if l.stop.Load() {
		return nil, fmt.Errorf("%w: stopped", errRenderLimit)
	}
	var start, stop, step = 0, 0, 1
	ints := make([]int, len(params.Args))
	for i, a := range params.Args {
		if !a.IsInteger() {
			return nil, errors.New("range: expected signature is [start, ]stop[, step] where all arguments are integers")
		}
		ints[i] = a.Integer()
	}
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return nil, errors.New("range: expected signature is [start, ]stop[, step] where all arguments are integers")
	}
	if step == 0 {
		return nil, errors.New("range: step cannot be 0")
	}
	n := 0
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && start > stop {
		n = (start - stop - step - 1) / -step
	}
	if n > maxRange {
		return nil, fmt.Errorf("%w: range of %d elements (at most %d, as in Jinja's sandbox)", errRenderLimit, n, maxRange)
	}
	if l.steps += n; l.steps > maxRangeSteps {
		return nil, fmt.Errorf("%w: loops over range() ran more than %d steps", errRenderLimit, maxRangeSteps)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out, nil
}

// limitedBuffer collects the output up to MaxChatOutputBytes. It is not a
// bytes.Buffer by embedding: gonja writes through io.WriteString, which would
// find an embedded WriteString and bypass the limit.
type limitedBuffer struct {
	buf strings.Builder
	lim *renderLimits
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if err := b.check(len(p)); err != nil {
		return 0, err
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) WriteString(s string) (int, error) {
	if err := b.check(len(s)); err != nil {
		return 0, err
	}
	return b.buf.WriteString(s)
}

func (b *limitedBuffer) check(n int) error {
	if b.lim.stop.Load() {
		return fmt.Errorf("%w: stopped", errRenderLimit)
	}
	if b.buf.Len()+n > MaxChatOutputBytes {
		return fmt.Errorf("%w: output of more than %d bytes", errRenderLimit, MaxChatOutputBytes)
	}
	return nil
}

func (b *limitedBuffer) String() string { return b.buf.String() }

func limitMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, errRenderLimit.Error()); i >= 0 {
		return msg[i:]
	}
	return msg
}

var (
	macroDef  = regexp.MustCompile(`\{%-?\s*macro\s+(\w+)\s*\(`)
	macroEnd  = regexp.MustCompile(`\{%-?\s*endmacro\b`)
	callNames = regexp.MustCompile(`\b(\w+)\s*\(`)
)

// recursiveMacros finds a macro that reaches itself through the macros its body
// calls, and returns the cycle ("a → b → a"), or "". Macro bodies are read from
// the source text: a {% macro %} ends at the next {% endmacro %}.
func recursiveMacros(source string) string {
	calls := map[string][]string{}
	for _, m := range macroDef.FindAllStringSubmatchIndex(source, -1) {
		name := source[m[2]:m[3]]
		body := source[m[1]:]
		if e := macroEnd.FindStringIndex(body); e != nil {
			body = body[:e[0]]
		}
		for _, c := range callNames.FindAllStringSubmatch(body, -1) {
			calls[name] = append(calls[name], c[1])
		}
	}
	var path []string
	onPath, done := map[string]bool{}, map[string]bool{}
	var visit func(n string) string
	visit = func(n string) string {
		if onPath[n] {
			i := slices.Index(path, n)
			return strings.Join(append(path[i:], n), " → ")
		}
		if done[n] || calls[n] == nil {
			return ""
		}
		onPath[n] = true
		path = append(path, n)
		for _, c := range calls[n] {
			if _, isMacro := calls[c]; isMacro || c == n {
				if cyc := visit(c); cyc != "" {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		onPath[n], done[n] = false, true
		return ""
	}
	names := make([]string, 0, len(calls))
	for n := range calls {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if cyc := visit(n); cyc != "" {
			return cyc
		}
	}
	return ""
}

// shortError drops the template source gonja embeds in its parse errors, which
// can be kilobytes long.
func shortError(err error, source string) string {
	msg := err.Error()
	if source != "" {
		msg = strings.ReplaceAll(msg, "'"+source+"'", "")
	}
	return msg
}

func raisedMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, errTemplateRaised.Error()); i >= 0 {
		return msg[i:]
	}
	return msg
}

// parseChatTemplateField reads chat_template: a string, or (newer configs) a list
// of {"name", "template"} of which "default" is used.
func parseChatTemplateField(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", fmt.Errorf("chat_template: want a string or a list of {name, template}: %w", err)
	}
	for _, n := range named {
		if n.Name == "default" {
			return n.Template, nil
		}
	}
	return "", fmt.Errorf("chat_template: no template named \"default\"")
}
