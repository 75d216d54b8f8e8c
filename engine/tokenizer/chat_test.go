package tokenizer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Expected strings below are derived by hand from each template's text.

const smolLM2Template = `{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system
You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
' }}{% endif %}{{'<|im_start|>' + message['role'] + '
' + message['content'] + '<|im_end|>' + '
'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant
' }}{% endif %}`

const qwen2Template = `{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}`

// multiLineTemplate checks transformers' trim_blocks/lstrip_blocks settings: the
// newline after a block tag and the indentation before one disappear.
const multiLineTemplate = `{% for message in messages %}
    {% if message.role == 'user' %}
Q: {{ message.content }}
    {% else %}
A: {{ message.content }}
    {% endif %}
{% endfor %}
{% if add_generation_prompt %}A:{% endif %}`

func user(s string) Message      { return Message{Role: "user", Content: s} }
func assistant(s string) Message { return Message{Role: "assistant", Content: s} }
func system(s string) Message    { return Message{Role: "system", Content: s} }

func TestChatTemplatesFromConfigs(t *testing.T) {
	llama3 := "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
	cases := []struct {
		name      string
		dir       string
		messages  []Message
		genPrompt bool
		want      string
		wantErr   string
	}{
		{"llama3 generation prompt", "models/tiny-llama3", []Message{user("Hi")}, true,
			llama3 + "<|start_header_id|>assistant<|end_header_id|>\n\n", ""},
		{"llama3 no generation prompt, content trimmed", "tokenizers/llama3", []Message{user("  Hi\n")}, false, llama3, ""},
		{"llama3 system and turns", "tokenizers/llama3", []Message{system("Be brief."), user("Hi"), assistant("Hello!")}, true,
			"<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>" +
				"<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>" +
				"<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>" +
				"<|start_header_id|>assistant<|end_header_id|>\n\n", ""},
		{"llama2 system folded into first turn", "tokenizers/llama2", []Message{system("S"), user("Hi \n")}, true,
			"<s>[INST] <<SYS>>\nS\n<</SYS>>\n\nHi [/INST]", ""},
		{"llama2 turns", "tokenizers/llama2", []Message{user("a"), assistant("b"), user("c")}, false,
			"<s>[INST] a [/INST] b </s><s>[INST] c [/INST]", ""},
		{"llama2 raise_exception", "tokenizers/llama2", []Message{user("a"), user("b")}, false,
			"", "Conversation roles must alternate user/assistant/user/assistant/..."},
		{"phi3 generation prompt", "tokenizers/phi3", []Message{user("Hi")}, true, "<|user|>\nHi<|end|>\n<|assistant|>\n", ""},
		{"phi3 closes with eos", "tokenizers/phi3", []Message{system("S"), user("Hi"), assistant("Yo")}, false,
			"<|system|>\nS<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nYo<|end|>\n<|endoftext|>", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := cachedShared(t, c.dir)
			tpl, err := tok.ChatTemplate()
			require.NoError(t, err)
			got, err := tpl.Render(c.messages, c.genPrompt)
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestChatTemplatesInline(t *testing.T) {
	cases := []struct {
		name      string
		source    string
		messages  []Message
		genPrompt bool
		want      string
	}{
		{"SmolLM2 default system", smolLM2Template, []Message{user("Hi")}, true,
			"<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n" +
				"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
		{"Qwen2 default system", qwen2Template, []Message{user("Hi")}, false,
			"<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"},
		{"Qwen2 own system", qwen2Template, []Message{system("S"), user("Hi")}, true,
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
		{"trim and lstrip blocks", multiLineTemplate, []Message{user("1+1?"), assistant("2")}, true,
			"Q: 1+1?\nA: 2\nA:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tpl, err := NewChatTemplate(c.source, "<s>", "</s>")
			require.NoError(t, err)
			got, err := tpl.Render(c.messages, c.genPrompt)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestChatTemplateErrors(t *testing.T) {
	_, err := NewChatTemplate("{% for m in messages %}{{ m.content }}", "", "")
	require.ErrorContains(t, err, "chat template")

	tpl, err := NewChatTemplate("{{ messages | no_such_filter }}", "", "")
	if err == nil {
		_, err = tpl.Render([]Message{user("x")}, false)
	}
	require.ErrorContains(t, err, "no_such_filter")

	tok := cachedShared(t, "gpt2")
	_, err = tok.ChatTemplate()
	require.ErrorIs(t, err, ErrNoChatTemplate)
}

func TestSpecialTokensFromConfig(t *testing.T) {
	tok := cachedShared(t, "models/tiny-llama3")
	bos, bosID, ok := tok.BOS()
	require.True(t, ok)
	require.Equal(t, "<|begin_of_text|>", bos)
	require.Equal(t, int32(128000), bosID)
	eos, eosID, ok := tok.EOS()
	require.True(t, ok)
	require.Equal(t, "<|eot_id|>", eos)
	require.Equal(t, int32(128009), eosID)
}
