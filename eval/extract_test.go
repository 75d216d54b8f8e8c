package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testExtractor runs a GSM8K task's strict-match and flexible-extract
// pipelines, compiled from its YAML, on one response.
type testExtractor struct{ strict, flexible *Pipeline }

type extraction struct{ Strict, Flexible string }

func extractorFor(t testing.TB, task string) *testExtractor {
	t.Helper()
	tk, err := datasets.LookupTask(task)
	require.NoError(t, err)
	var e testExtractor
	for name, dst := range map[string]**Pipeline{"strict-match": &e.strict, "flexible-extract": &e.flexible} {
		spec, ok := tk.Filter(name)
		require.True(t, ok, "%s has no %s filter", task, name)
		p, err := CompilePipeline(spec)
		require.NoError(t, err)
		*dst = p
	}
	return &e
}

func (e *testExtractor) Extract(response string) extraction {
	s, _, err1 := e.strict.Apply([]string{response}, nil)
	f, _, err2 := e.flexible.Apply([]string{response}, nil)
	if err1 != nil || err2 != nil {
		panic(fmt.Sprint(err1, err2))
	}
	return extraction{Strict: s[0], Flexible: f[0]}
}

// gsm8kTasks are the built-in tasks with strict-match and flexible-extract.
var gsm8kTasks = []string{"gsm8k", "gsm8k_cot", "gsm8k_cot_llama", "gsm8k_cot_zeroshot"}

// Expected values are worked out by hand from Python re.findall semantics
// (leftmost-first, greedy with backtracking, "." not matching "\n").
func TestExtractStrict(t *testing.T) {
	tests := []struct {
		task, response, want string
	}{
		// gsm8k: "#### (\-?[0-9\.\,]+)", first match.
		{"gsm8k", "She makes 9 * 2 = $18.\n#### 18", "18"},
		{"gsm8k", "#### 1,000\n#### 2", "1,000"},
		{"gsm8k", "#### -5", "-5"},
		{"gsm8k", "#### 18.50.", "18.50."},
		{"gsm8k", "####18", "[invalid]"},
		{"gsm8k", "####  18", "[invalid]"},
		{"gsm8k", "#### $18", "[invalid]"},
		{"gsm8k", "#### --5", "[invalid]"},
		{"gsm8k", "The answer is 18.", "[invalid]"},
		{"gsm8k", "", "[invalid]"},
		// gsm8k_cot / zeroshot: "The answer is (\-?[0-9\.\,]+)." with an unescaped ".".
		{"gsm8k_cot", "9 + 20 is 29. The answer is 29.", "29"},
		{"gsm8k_cot", "The answer is 18", "1"},   // "." must eat a char: backtracks to "1"
		{"gsm8k_cot", "The answer is 18\n", "1"}, // "." does not match "\n" either
		{"gsm8k_cot", "The answer is 7", "[invalid]"},
		{"gsm8k_cot", "The answer is 18 dollars.", "18"},
		{"gsm8k_cot", "The answer is 1,234.56.", "1,234.56"},
		{"gsm8k_cot", "The answer is -3.", "-3"},
		{"gsm8k_cot", "The answer is $18.", "[invalid]"},
		{"gsm8k_cot", "the answer is 5.", "[invalid]"},
		{"gsm8k_cot", "The answer is 5. The answer is 7.", "5."}, // greedy "5." then "." eats the space
		{"gsm8k_cot", "The answer is 42.\n\nQ: more", "42"},
		{"gsm8k_cot_zeroshot", "Let's see. The answer is 18", "1"},
		{"gsm8k_cot_zeroshot", "The answer is 100!", "100"},
		// gsm8k_cot_llama: "The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))", last match.
		{"gsm8k_cot_llama", "The final answer is 18", "18"},
		{"gsm8k_cot_llama", "The final answer is 5", "5"},
		{"gsm8k_cot_llama", "The final answer is $18.00", "$18.00"},
		{"gsm8k_cot_llama", "The final answer is 5. Then", "5."},
		{"gsm8k_cot_llama", "The final answer is 3, no wait. The final answer is 7", "7"},
		{"gsm8k_cot_llama", "The final answer is: 18", "[invalid]"},
		{"gsm8k_cot_llama", "The final answer is 1,000", "1,000"},
		{"gsm8k_cot_llama", "The final answer is -12", "-12"},
	}
	for _, tt := range tests {
		t.Run(tt.task+"/"+tt.response, func(t *testing.T) {
			assert.Equal(t, tt.want, extractorFor(t, tt.task).Extract(tt.response).Strict)
		})
	}
}

func TestExtractFlexible(t *testing.T) {
	// "(-?[$0-9.,]{2,})|(-?[0-9]+)", last match, first non-empty group; the same
	// for every task.
	tests := []struct {
		response, want string
	}{
		{"Janet sells 16 - 3 - 4 = 9 duck eggs. She makes 9 * 2 = $18 every day.", "$18"},
		{"The answer is 18.", "18."},
		{"It costs 5 dollars", "5"},
		{"Result: -7", "-7"},
		{"1, 2, 3", "3"},
		{"1, 2, 3,", "3,"},
		{"Answer: 42 ...", "..."}, // three dots are a match of the first alternative
		{"---5", "-5"},
		{"$5", "$5"},
		{"no numbers here", "[invalid]"},
		{"", "[invalid]"},
		{"#### 1,234", "1,234"},
		{"x 12 y\n", "12"},
	}
	for _, task := range gsm8kTasks {
		e := extractorFor(t, task)
		for _, tt := range tests {
			assert.Equal(t, tt.want, e.Extract(tt.response).Flexible, "%s: %q", task, tt.response)
		}
	}
}

func TestCutAtStop(t *testing.T) {
	tests := []struct {
		text  string
		stops []string
		want  string
		found bool
	}{
		{"#### 18\n\nQuestion: next one", []string{"Question:", "</s>", "<|im_end|>"}, "#### 18\n\n", true},
		{"a</s>bQ:c", []string{"Q:", "</s>"}, "a", true}, // earliest wins, not list order
		{"Q: at start", []string{"Q:"}, "", true},
		{"no stop here", []string{"Q:"}, "no stop here", false},
		{"empty stop ignored", []string{""}, "empty stop ignored", false},
		{"x<|eot_id|>y", []string{"<|eot_id|>", "<|start_header_id|>user<|end_header_id|>"}, "x", true},
		{"anything", nil, "anything", false},
	}
	for _, tt := range tests {
		got, found := CutAtStop(tt.text, tt.stops)
		assert.Equal(t, tt.want, got, tt.text)
		assert.Equal(t, tt.found, found, tt.text)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"#### 18", "The answer is 18", "The final answer is $1,000.", "1, 2, 3", "", "\x00\xff"} {
		f.Add(s)
	}
	var exs []*testExtractor
	for _, n := range gsm8kTasks {
		exs = append(exs, extractorFor(f, n))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range exs {
			x := e.Extract(s)
			for _, v := range []string{x.Strict, x.Flexible} {
				if v != datasets.InvalidAnswer && !strings.Contains(s, v) {
					t.Fatalf("extraction %q is not part of the response %q", v, s)
				}
			}
			_ = hooks.ExactMatch(x.Strict, s)
			_ = hooks.NumericMatch(x.Flexible, s)
		}
		cut, _ := CutAtStop(s, []string{"Q:", "</s>"})
		if !strings.HasPrefix(s, cut) {
			t.Fatalf("cut %q is not a prefix", cut)
		}
	})
}
