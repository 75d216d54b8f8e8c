package eval

import (
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type gsm8kGrade struct {
	ExtractedStrict, ExtractedFlexible             string
	CorrectStrict, CorrectFlexible, CorrectNumeric bool
}

func builtinSpec(t testing.TB, task string) TaskSpec {
	t.Helper()
	tk, err := datasets.LookupTask(task)
	require.NoError(t, err)
	return TaskSpec{Name: tk.Name, Filters: tk.Filters, Metrics: tk.Metrics, Repeats: tk.Repeats}
}

func gradeOne(t testing.TB, g Grader, task, response, target string) gsm8kGrade {
	t.Helper()
	gs, err := g.Grade(builtinSpec(t, task), Reference{Target: target}, []string{response})
	require.NoError(t, err)
	require.Len(t, gs, 1)
	var out gsm8kGrade
	for _, a := range gs[0].Answers {
		switch a.Filter {
		case "strict-match":
			out.ExtractedStrict = a.Answer
		case "flexible-extract":
			out.ExtractedFlexible = a.Answer
		}
	}
	for _, s := range gs[0].Scores {
		switch s.Key() {
		case "exact_match,strict-match":
			out.CorrectStrict = s.Value == 1
		case "exact_match,flexible-extract":
			out.CorrectFlexible = s.Value == 1
		case "numeric_match,strict-match":
			out.CorrectNumeric = s.Value == 1
		}
	}
	return out
}

const janetAnswer = "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.\n#### 18"

func TestLMEvalGrader(t *testing.T) {
	g := NewLMEvalGrader()
	tests := []struct {
		task, response, target string
		want                   gsm8kGrade
	}{
		{"gsm8k", "She makes $18.\n#### 18", janetAnswer,
			gsm8kGrade{ExtractedStrict: "18", ExtractedFlexible: "18", CorrectStrict: true, CorrectFlexible: true, CorrectNumeric: true}},
		{"gsm8k_cot", "So she makes 18 dollars. The answer is 18", "18",
			gsm8kGrade{ExtractedStrict: "1", ExtractedFlexible: "18", CorrectFlexible: true}},
		{"gsm8k_cot", "9 * 2 = 18. The answer is 18.00.", "18",
			gsm8kGrade{ExtractedStrict: "18.00", ExtractedFlexible: "18.00.", CorrectNumeric: true}},
		{"gsm8k_cot_llama", "9 * 2 = 18\nThe final answer is $18", "18",
			gsm8kGrade{ExtractedStrict: "$18", ExtractedFlexible: "$18", CorrectStrict: true, CorrectFlexible: true, CorrectNumeric: true}},
		{"gsm8k_cot_zeroshot", "I do not know", "18",
			gsm8kGrade{ExtractedStrict: "[invalid]", ExtractedFlexible: "[invalid]"}},
		{"gsm8k_cot", "The answer is 3.", "", // no valid reference: never correct
			gsm8kGrade{ExtractedStrict: "3", ExtractedFlexible: "3."}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gradeOne(t, g, tt.task, tt.response, tt.target), "%s: %q", tt.task, tt.response)
	}
	_, err := g.Grade(TaskSpec{Name: "empty"}, Reference{Target: "1"}, []string{"x"})
	assert.ErrorContains(t, err, "no filters or metrics")
}
