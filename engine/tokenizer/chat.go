package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	return NewChatTemplate(t.chatTemplate, t.specialTokens.BOS, t.specialTokens.EOS)
}

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
	return &ChatTemplate{source: source, tpl: tpl, bos: bos, eos: eos}, nil
}

// Render renders messages; addGenerationPrompt appends the assistant header so
// the model answers next. A template's raise_exception(...) becomes an error.
func (c *ChatTemplate) Render(messages []Message, addGenerationPrompt bool) (string, error) {
	msgs := make([]map[string]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	ctx := exec.NewContext(map[string]any{
		"messages":              msgs,
		"add_generation_prompt": addGenerationPrompt,
		"bos_token":             c.bos,
		"eos_token":             c.eos,
		"raise_exception": func(msg string) (string, error) {
			return "", fmt.Errorf("%w: %s", errTemplateRaised, msg)
		},
	})
	var out bytes.Buffer
	if err := c.tpl.Execute(&out, ctx); err != nil {
		if errors.Is(err, errTemplateRaised) {
			return "", fmt.Errorf("chat template: %s", raisedMessage(err))
		}
		return "", fmt.Errorf("chat template: unsupported or invalid Jinja: %s", shortError(err, c.source))
	}
	return out.String(), nil
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
