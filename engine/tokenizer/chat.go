package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/jinja"
)

// Message is one chat turn, as in Hugging Face's apply_chat_template.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatTemplate is a compiled tokenizer_config.json chat_template (Jinja).
type ChatTemplate struct {
	source   string
	tpl      *jinja.Template
	bos, eos string
	file     string // named in errors
}

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
// It uses the Jinja settings transformers uses (trim_blocks, lstrip_blocks),
// in the bounded environment every template renders in (internal/jinja):
// tokenizer_config.json comes from the internet.
func NewChatTemplate(source, bos, eos string) (*ChatTemplate, error) {
	tpl, err := jinja.Compile(source, jinja.Options{Name: "chat_template", TrimBlocks: true, LStripBlocks: true})
	if errors.Is(err, jinja.ErrLimit) {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("chat template: unsupported or invalid Jinja: %w", err)
	}
	return &ChatTemplate{source: source, tpl: tpl, bos: bos, eos: eos}, nil
}

// Render renders messages; addGenerationPrompt appends the assistant header so
// the model answers next. A template's raise_exception(...) becomes an error, and
// so does a render past the environment's limits; errors name the file.
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
	out, err := c.tpl.Render(map[string]any{
		"messages":              msgs,
		"add_generation_prompt": addGenerationPrompt,
		"bos_token":             c.bos,
		"eos_token":             c.eos,
		"raise_exception": func(msg string) (string, error) {
			return "", fmt.Errorf("%w: %s", errTemplateRaised, msg)
		},
	})
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, jinja.ErrLimit):
		return "", fmt.Errorf("chat template: %w", err)
	case strings.Contains(err.Error(), errTemplateRaised.Error()):
		return "", fmt.Errorf("chat template: %s", raisedMessage(err))
	}
	return "", fmt.Errorf("chat template: unsupported or invalid Jinja: %s", jinja.ShortError(err, c.source))
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
