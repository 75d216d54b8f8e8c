package eval

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// The chat prompt of gsm8k_cot_llama doc 0 is byte-identical to lm-eval's
// (v0.4.10+, --apply_chat_template, fewshot_as_multiturn on by default), derived by
// hand: fewshot_context builds, per exemplar of the YAML's fewshot_config (first_n),
// Message("user", doc_to_text(shot)) and Message("assistant", target) — to_dict drops
// the delimiters —, then Message("user", doc_to_text(doc)); Llama 3's template
// writes bos_token once, then per message '<|start_header_id|>' + role +
// '<|end_header_id|>\n\n' + content|trim + '<|eot_id|>', then the generation prompt.
// trim removes the "\n" doc_to_text ends with.
func TestChatMultiturnPromptMatchesLMEval(t *testing.T) {
	head := "Given the following problem, reason and give a final answer to the problem.\nProblem: "
	tail := "\nYour response should end with \"The final answer is [answer]\" where [answer] is the response to the problem."
	// The exemplars straight from lm-eval's task YAML (fewshot_config.samples).
	var yml struct {
		Fewshot struct {
			Samples []struct{ Question, Target string }
		} `yaml:"fewshot_config"`
	}
	raw, err := os.ReadFile(sharedtest.Path(t, "tasks/lm-eval/gsm8k/gsm8k-cot-llama.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &yml))
	shots := yml.Fewshot.Samples
	require.Len(t, shots, 8)
	q0 := "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?"
	turn := func(role, content string) string {
		return "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + content + "<|eot_id|>"
	}
	var want strings.Builder
	want.WriteString("<|begin_of_text|>")
	for _, s := range shots {
		want.WriteString(turn("user", head+s.Question+tail) + turn("assistant", s.Target))
	}
	want.WriteString(turn("user", head+q0+tail) + "<|start_header_id|>assistant<|end_header_id|>\n\n")

	tok, err := tokenizer.Load(sharedtest.Path(t, "tokenizers/llama3"))
	require.NoError(t, err)
	cfg := Config{Task: "gsm8k_cot_llama", Dataset: sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet"),
		ChatTemplate: true, Limit: 1}.WithDefaults()
	require.True(t, *cfg.FewshotAsMultiturn, "on by default with a chat template")
	task, err := ResolveTask(cfg)
	require.NoError(t, err)
	src := DataSourceOf(cfg, task, nil)
	in, err := LoadTaskInputs(cfg, task, src, tok)
	require.NoError(t, err)
	require.Len(t, in.Problems, 1)
	assert.Equal(t, want.String(), in.Problems[0].Prompt)

	// fewshot_as_multiturn: false puts every shot in the first user turn, joined
	// with the YAML's delimiters (target_delimiter "", fewshot_delimiter "\n\n").
	off := false
	cfg.FewshotAsMultiturn = &off
	in, err = LoadTaskInputs(cfg, task, src, tok)
	require.NoError(t, err)
	var single strings.Builder
	for _, s := range shots {
		single.WriteString(head + s.Question + tail + "\n" + s.Target + "\n\n")
	}
	single.WriteString(head + q0 + tail)
	assert.Equal(t, "<|begin_of_text|>"+turn("user", single.String())+"<|start_header_id|>assistant<|end_header_id|>\n\n", in.Problems[0].Prompt)

	bad := Config{Model: "m", Task: "gsm8k", Dataset: "d", Out: "o", Samplers: []sampler.Spec{{Name: "greedy"}}, FewshotAsMultiturn: new(true)}
	require.ErrorContains(t, bad.WithDefaults().Validate(), "fewshot_as_multiturn: needs chat_template: true")
}

// arc_challenge_chat with a chat template: lm-eval (>= 0.4.10) ends the
// conversation with an assistant turn holding gen_prefix and renders it with
// continue_final_message, so the prompt stops right after the prefix, with no
// end-of-turn and no new generation header. Llama 3's template trims each
// content.
func TestChatGenPrefixContinuesTheAssistantTurn(t *testing.T) {
	tok, err := tokenizer.Load(sharedtest.Path(t, "tokenizers/llama3"))
	require.NoError(t, err)
	cfg := Config{Task: "arc_challenge_chat", IncludePaths: []string{sharedtest.Path(t, "tasks/lm-eval")},
		DataDirs: []string{sharedtest.Path(t, "tasks/data")}, Limit: 1}.WithDefaults()
	task, err := ResolveTask(cfg)
	require.NoError(t, err)
	src := DataSourceOf(cfg, task, nil)
	plain, err := LoadTaskInputs(cfg, task, src, tok)
	require.NoError(t, err)
	const prefix = "The best answer is"
	q, ok := strings.CutSuffix(plain.Problems[0].Prompt, " "+prefix)
	require.True(t, ok, "the plain prompt is the question, the target delimiter and gen_prefix")

	cfg.ChatTemplate = true
	chat, err := LoadTaskInputs(cfg, task, src, tok)
	require.NoError(t, err)
	want := "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + strings.TrimSpace(q) + "<|eot_id|>" +
		"<|start_header_id|>assistant<|end_header_id|>\n\n" + prefix
	assert.Equal(t, want, chat.Problems[0].Prompt)
}
