package eval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
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
	shots := [8][2]string{
		{"There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?", "There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The final answer is 6"},
		{"If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?", "There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The final answer is 5"},
		{"Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?", "Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74. After eating 35, they had 74 - 35 = 39. The final answer is 39"},
		{"Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?", "Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave Denny 20 - 12 = 8. The final answer is 8"},
		{"Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?", "Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4 more toys. 5 + 4 = 9. The final answer is 9"},
		{"There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?", "There were originally 9 computers. For each of 4 days, 5 more computers were added. So 5 * 4 = 20 computers were added. 9 + 20 is 29. The final answer is 29"},
		{"Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?", "Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35. After losing 2 more, he had 35 - 2 = 33 golf balls. The final answer is 33"},
		{"Olivia has $23. She bought five bagels for $3 each. How much money does she have left?", "Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The final answer is 8"},
	}
	q0 := "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?"
	turn := func(role, content string) string {
		return "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + content + "<|eot_id|>"
	}
	var want strings.Builder
	want.WriteString("<|begin_of_text|>")
	for _, s := range shots {
		want.WriteString(turn("user", head+s[0]+tail) + turn("assistant", s[1]))
	}
	want.WriteString(turn("user", head+q0+tail) + "<|start_header_id|>assistant<|end_header_id|>\n\n")

	tok, err := tokenizer.Load(sharedtest.Path(t, "tokenizers/llama3"))
	require.NoError(t, err)
	cfg := Config{Task: "gsm8k_cot_llama", Dataset: sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet"),
		FewShot: sharedtest.Path(t, "data/fewshot"), ChatTemplate: true, Limit: 1}.WithDefaults()
	require.True(t, *cfg.FewshotAsMultiturn, "on by default with a chat template")
	in, err := LoadTaskInputs(cfg, tok)
	require.NoError(t, err)
	require.Len(t, in.Problems, 1)
	assert.Equal(t, want.String(), in.Problems[0].Prompt)

	// fewshot_as_multiturn: false puts every shot in the first user turn, joined
	// with the YAML's delimiters (target_delimiter "", fewshot_delimiter "\n\n").
	off := false
	cfg.FewshotAsMultiturn = &off
	in, err = LoadTaskInputs(cfg, tok)
	require.NoError(t, err)
	var single strings.Builder
	for _, s := range shots {
		single.WriteString(head + s[0] + tail + "\n" + s[1] + "\n\n")
	}
	single.WriteString(head + q0 + tail)
	assert.Equal(t, "<|begin_of_text|>"+turn("user", single.String())+"<|start_header_id|>assistant<|end_header_id|>\n\n", in.Problems[0].Prompt)

	bad := Config{Model: "m", Task: "gsm8k", Dataset: "d", Out: "o", Samplers: []SamplerSpec{{Name: "greedy"}}, FewshotAsMultiturn: new(true)}
	require.ErrorContains(t, bad.WithDefaults().Validate(), "fewshot_as_multiturn: needs chat_template: true")
}
