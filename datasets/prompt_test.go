package datasets

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected prompts are written out by hand from docs/GSM8K.md's assembly rule
// (shot = text + target_delimiter + target + "\n\n"; then the doc's text) and
// the data files, never taken from the code under test.

const (
	testQ0 = "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?"
	testQ1 = "A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?"
)

// cot8 is the 8-shot block of gsm8k_cot ("Q: q\nA: target\n\n" per shot).
const cot8 = "Q: There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?\nA: There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The answer is 6.\n\n" +
	"Q: If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?\nA: There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The answer is 5.\n\n" +
	"Q: Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?\nA: Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74. After eating 35, they had 74 - 35 = 39. The answer is 39.\n\n" +
	"Q: Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?\nA: Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave Denny 20 - 12 = 8. The answer is 8.\n\n" +
	"Q: Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?\nA: Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4 more toys. 5 + 4 = 9. The answer is 9.\n\n" +
	"Q: There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?\nA: There were originally 9 computers. For each of 4 days, 5 more computers were added. So 5 * 4 = 20 computers were added. 9 + 20 is 29. The answer is 29.\n\n" +
	"Q: Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?\nA: Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35. After losing 2 more, he had 35 - 2 = 33 golf balls. The answer is 33.\n\n" +
	"Q: Olivia has $23. She bought five bagels for $3 each. How much money does she have left?\nA: Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The answer is 8.\n\n"

const (
	llamaHead = "Given the following problem, reason and give a final answer to the problem.\nProblem: "
	llamaTail = "\nYour response should end with \"The final answer is [answer]\" where [answer] is the response to the problem.\n"
)

// llamaShots are gsm8k_cot_llama's exemplars: question and target (no delimiter
// between the text, which ends in "\n", and the target).
var llamaShots = [8][2]string{
	{"There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?", "There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The final answer is 6"},
	{"If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?", "There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The final answer is 5"},
	{"Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?", "Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74. After eating 35, they had 74 - 35 = 39. The final answer is 39"},
	{"Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?", "Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave Denny 20 - 12 = 8. The final answer is 8"},
	{"Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?", "Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4 more toys. 5 + 4 = 9. The final answer is 9"},
	{"There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?", "There were originally 9 computers. For each of 4 days, 5 more computers were added. So 5 * 4 = 20 computers were added. 9 + 20 is 29. The final answer is 29"},
	{"Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?", "Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35. After losing 2 more, he had 35 - 2 = 33 golf balls. The final answer is 33"},
	{"Olivia has $23. She bought five bagels for $3 each. How much money does she have left?", "Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The final answer is 8"},
}

func llama8() string {
	var b strings.Builder
	for _, s := range llamaShots {
		b.WriteString(llamaHead + s[0] + llamaTail + s[1] + "\n\n")
	}
	return b.String()
}

type gsm8kFixture struct {
	test, train     []Problem
	trainRef        []qa
	cotShots        []Problem
	llamaShotsFile  []Problem
	fewshotDir      string
	trainParquet    string
	testParquetGlob string
}

func loadFixture(t *testing.T) gsm8kFixture {
	t.Helper()
	root := sharedtest.Path(t, "data")
	var f gsm8kFixture
	f.fewshotDir = filepath.Join(root, "fewshot")
	f.trainParquet = filepath.Join(root, "gsm8k/main/train-00000-of-00001.parquet")
	f.testParquetGlob = filepath.Join(root, "gsm8k/main/test-*.parquet")
	ds, err := Load(f.testParquetGlob)
	require.NoError(t, err)
	f.test = ds.Problems
	ds, err = Load(f.trainParquet)
	require.NoError(t, err)
	f.train = ds.Problems
	f.trainRef = referenceRows(t, filepath.Join(root, "gsm8k/train.jsonl"))
	return f
}

func buildPrompts(t *testing.T, name string, f gsm8kFixture, opts PromptOptions, docs ...int) []Prompt {
	t.Helper()
	task, err := LookupTask(name)
	require.NoError(t, err)
	td, err := LoadTaskData(task, DataSource{Files: map[string]string{"test": f.testParquetGlob, "train": f.trainParquet}}, task.NumFewshot)
	require.NoError(t, err)
	p, err := NewPrompter(task, td.Shots, opts)
	require.NoError(t, err)
	var out []Prompt
	for _, i := range docs {
		pr, err := p.Build(f.test[i])
		require.NoError(t, err)
		out = append(out, pr)
	}
	return out
}

// gsm8kShots assembles lm-eval's 5-shot block from the train JSONL and the
// indexes CPython draws (see pyrandom_test.go for the snippet).
func gsm8kShots(train []qa, idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		fmt.Fprintf(&b, "Question: %s\nAnswer: %s\n\n", train[i].Question, train[i].Answer)
	}
	return b.String()
}

func TestPromptsMatchLMEval(t *testing.T) {
	f := loadFixture(t)
	draw0 := []int{6374, 3610, 957, 61, 742}
	draw1 := []int{7462, 6610, 4769, 286, 5501}
	tests := []struct {
		task string
		want [2]string
	}{
		{"gsm8k", [2]string{
			gsm8kShots(f.trainRef, draw0) + "Question: " + testQ0 + "\nAnswer:",
			gsm8kShots(f.trainRef, draw1) + "Question: " + testQ1 + "\nAnswer:",
		}},
		{"gsm8k_cot", [2]string{cot8 + "Q: " + testQ0 + "\nA:", cot8 + "Q: " + testQ1 + "\nA:"}},
		{"gsm8k_cot_llama", [2]string{llama8() + llamaHead + testQ0 + llamaTail, llama8() + llamaHead + testQ1 + llamaTail}},
		{"gsm8k_cot_zeroshot", [2]string{
			"Q: " + testQ0 + "\nA: Let's think step by step.",
			"Q: " + testQ1 + "\nA: Let's think step by step.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			got := buildPrompts(t, tt.task, f, PromptOptions{}, 0, 1)
			for i := range 2 {
				assert.Equal(t, tt.want[i], got[i].Text, "doc %d", i)
				assert.Nil(t, got[i].Messages)
				assert.Equal(t, 256, got[i].MaxNewTokens)
			}
		})
	}
}

func TestGSM8KShotIndexes(t *testing.T) {
	f := loadFixture(t)
	// Asking out of order must give each doc its own draw.
	got := buildPrompts(t, "gsm8k", f, PromptOptions{}, 1318, 1, 0)
	assert.Equal(t, []int{220, 4179, 6064, 5599, 5541}, got[0].Shots)
	assert.Equal(t, []int{7462, 6610, 4769, 286, 5501}, got[1].Shots)
	assert.Equal(t, []int{6374, 3610, 957, 61, 742}, got[2].Shots)
}

func TestStopStrings(t *testing.T) {
	tests := []struct {
		task string
		eos  string
		want []string
	}{
		{"gsm8k", "<|eot_id|>", []string{"Question:", "</s>", "<|im_end|>", "<|eot_id|>"}},
		{"gsm8k_cot", "</s>", []string{"Q:", "</s>", "<|im_end|>"}}, // EOS already a stop
		{"gsm8k_cot_llama", "<|eot_id|>", []string{"<|eot_id|>", "<|start_header_id|>user<|end_header_id|>", "Q:", "</s>", "<|im_end|>"}},
		{"gsm8k_cot_zeroshot", "", []string{"Q:", "</s>", "<|im_end|>"}},
	}
	for _, tt := range tests {
		task, err := LookupTask(tt.task)
		require.NoError(t, err)
		p, err := NewPrompter(task, make([]Problem, 8), PromptOptions{NumFewshot: new(0)})
		require.NoError(t, err)
		pr, err := p.Build(Problem{Doc: Doc{"question": "q"}})
		require.NoError(t, err)
		assert.Equal(t, tt.want, pr.StopStrings(tt.eos), tt.task)
	}
}

func TestChatMessagesMultiturn(t *testing.T) {
	f := loadFixture(t)
	got := buildPrompts(t, "gsm8k_cot_llama", f, PromptOptions{ChatTemplate: true, FewshotAsMultiturn: true}, 0)[0]
	require.Len(t, got.Messages, 17)
	assert.Empty(t, got.Text)
	for i, s := range llamaShots {
		assert.Equal(t, Message{Role: "user", Content: llamaHead + s[0] + llamaTail}, got.Messages[2*i])
		assert.Equal(t, Message{Role: "assistant", Content: s[1]}, got.Messages[2*i+1])
	}
	assert.Equal(t, Message{Role: "user", Content: llamaHead + testQ0 + llamaTail}, got.Messages[16])
}

func TestChatMessagesSingleTurn(t *testing.T) {
	f := loadFixture(t)
	got := buildPrompts(t, "gsm8k_cot", f, PromptOptions{ChatTemplate: true, SystemInstruction: "Be brief."}, 1)[0]
	assert.Equal(t, []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: cot8 + "Q: " + testQ1 + "\nA:"},
	}, got.Messages)

	// Zero-shot: just the question.
	got = buildPrompts(t, "gsm8k_cot_zeroshot", f, PromptOptions{ChatTemplate: true}, 0)[0]
	assert.Equal(t, []Message{{Role: "user", Content: "Q: " + testQ0 + "\nA: Let's think step by step."}}, got.Messages)
}

func TestChatRandomShotsDrawOncePerDoc(t *testing.T) {
	// lm-eval >= v0.4.10 samples once per doc whatever the mode: doc 0 gets
	// CPython's 1st sample, doc 1 the 2nd, as plain prompts do.
	//   r = random.Random(1234); [r.sample(range(7473), 5) for _ in range(2)]
	f := loadFixture(t)
	got := buildPrompts(t, "gsm8k", f, PromptOptions{ChatTemplate: true}, 0, 1)
	assert.Equal(t, []int{6374, 3610, 957, 61, 742}, got[0].Shots)
	assert.Equal(t, []int{7462, 6610, 4769, 286, 5501}, got[1].Shots)
	want := gsm8kShots(f.trainRef, got[0].Shots) + "Question: " + testQ0 + "\nAnswer:"
	assert.Equal(t, []Message{{Role: "user", Content: want}}, got[0].Messages)

	// Multi-turn: the same draws, one user/assistant pair per shot.
	got = buildPrompts(t, "gsm8k", f, PromptOptions{ChatTemplate: true, FewshotAsMultiturn: true}, 0)
	assert.Equal(t, []int{6374, 3610, 957, 61, 742}, got[0].Shots)
	require.Len(t, got[0].Messages, 11)
	assert.Equal(t, Message{Role: "user", Content: "Question: " + f.trainRef[6374].Question + "\nAnswer:"}, got[0].Messages[0])
	assert.Equal(t, Message{Role: "assistant", Content: f.trainRef[6374].Answer}, got[0].Messages[1])
}

func TestFewshotFromTestSplitDropsTheDoc(t *testing.T) {
	// 20 synthetic docs used as both test and few-shot split; CPython:
	//   r = random.Random(1234); d = [r.sample(range(20), 6) for _ in range(20)]
	//   d[0] = [14, 3, 0, 2, 1, 10]  d[1] = [2, 3, 11, 7, 0, 15]  d[15] = [15, 5, 14, 16, 17, 4]
	docs := make([]Problem, 20)
	for i := range docs {
		docs[i] = Problem{Index: i, Doc: Doc{"question": fmt.Sprintf("q%d", i), "answer": fmt.Sprintf("a%d\n#### %d", i, i)}}
	}
	task, err := LookupTask("gsm8k")
	require.NoError(t, err)
	p, err := NewPrompter(task, docs, PromptOptions{FewshotFromTestSplit: true})
	require.NoError(t, err)
	want := map[int][]int{0: {14, 3, 2, 1, 10}, 1: {2, 3, 11, 7, 0}, 15: {5, 14, 16, 17, 4}}
	for _, i := range []int{0, 1, 15} {
		pr, err := p.Build(docs[i])
		require.NoError(t, err)
		assert.Equal(t, want[i], pr.Shots, "doc %d", i)
	}
}

func TestPrompterErrors(t *testing.T) {
	task, err := LookupTask("gsm8k_cot")
	require.NoError(t, err)
	_, err = NewPrompter(task, make([]Problem, 3), PromptOptions{})
	assert.ErrorContains(t, err, "8-shot needs 8 few-shot examples, have 3")
	_, err = NewPrompter(task, nil, PromptOptions{NumFewshot: new(-1)})
	assert.ErrorContains(t, err, "negative")
	_, err = LookupTask("gsm9k")
	assert.ErrorContains(t, err, `unknown task "gsm9k"`)

	g, err := LookupTask("gsm8k")
	require.NoError(t, err)
	p, err := NewPrompter(g, make([]Problem, 10), PromptOptions{})
	require.NoError(t, err)
	_, err = p.Build(Problem{Index: -1})
	assert.ErrorContains(t, err, "out of range")
}

// TestFewshotFilesMatchTasks holds the built-in tasks' inline exemplars to
// the shared few-shot files.
func TestFewshotFilesMatchTasks(t *testing.T) {
	dir := sharedtest.Path(t, "data/fewshot")
	for task, file := range map[string]string{"gsm8k_cot": "gsm8k_cot_8shot.jsonl", "gsm8k_cot_llama": "gsm8k_cot_llama_8shot.jsonl"} {
		shots, err := LoadFewshotFile(filepath.Join(dir, file))
		require.NoError(t, err)
		tk, err := LookupTask(task)
		require.NoError(t, err)
		require.Len(t, tk.Fewshot.Samples, len(shots), task)
		for i, s := range shots {
			assert.Equal(t, s.Question, tk.Fewshot.Samples[i]["question"], "%s shot %d", task, i)
			assert.Equal(t, s.Target, tk.Fewshot.Samples[i]["target"], "%s shot %d", task, i)
		}
	}
}

func TestTaskNames(t *testing.T) {
	assert.Equal(t, []string{"gsm8k", "gsm8k_cot", "gsm8k_cot_llama", "gsm8k_cot_self_consistency", "gsm8k_cot_zeroshot"}, TaskNames())
}

func TestLoadTaskDataShots(t *testing.T) {
	f := loadFixture(t)
	src := DataSource{Files: map[string]string{"test": f.testParquetGlob}}
	zs, err := LookupTask("gsm8k_cot_zeroshot")
	require.NoError(t, err)
	td, err := LoadTaskData(zs, src, zs.NumFewshot)
	require.NoError(t, err)
	assert.Nil(t, td.Shots)
	assert.Len(t, td.Docs.Problems, 1319)

	g, err := LookupTask("gsm8k")
	require.NoError(t, err)
	_, err = LoadTaskData(g, src, g.NumFewshot)
	assert.ErrorIs(t, err, ErrDataNotFound)
	assert.ErrorContains(t, err, `split "train" of openai/gsm8k/main`)
	assert.ErrorContains(t, err, "--train-dataset")

	cot, err := LookupTask("gsm8k_cot")
	require.NoError(t, err)
	td, err = LoadTaskData(cot, src, cot.NumFewshot)
	require.NoError(t, err)
	assert.Len(t, td.Shots, 8, "inline fewshot_config.samples")
}

func TestPrompterConcurrentBuilds(t *testing.T) {
	f := loadFixture(t)
	task, err := LookupTask("gsm8k")
	require.NoError(t, err)
	p, err := NewPrompter(task, f.train, PromptOptions{})
	require.NoError(t, err)
	got := make([][]int, 4)
	done := make(chan struct{})
	for w, doc := range []int{1318, 2, 1, 0} {
		go func() {
			defer func() { done <- struct{}{} }()
			pr, err := p.Build(f.test[doc])
			if err == nil {
				got[w] = pr.Shots
			}
		}()
	}
	for range 4 {
		<-done
	}
	assert.Equal(t, [][]int{{220, 4179, 6064, 5599, 5541}, {5677, 687, 806, 6279, 2905},
		{7462, 6610, 4769, 286, 5501}, {6374, 3610, 957, 61, 742}}, got)
}
