package eval

import (
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gsm8kTest(t testing.TB) []datasets.Problem {
	t.Helper()
	ds, err := datasets.Load(sharedtest.Path(t, "data/gsm8k/test.jsonl"))
	require.NoError(t, err)
	return ds.Problems
}

// A reference solution fed back as the response must score correct under
// every metric: the gsm8k strict regex finds its "#### N" line, and its
// final number equals the target.
func TestReferenceAnswersScoreCorrect(t *testing.T) {
	g := NewLMEvalGrader()
	for _, p := range gsm8kTest(t) {
		got := gradeOne(t, g, "gsm8k", p.Answer, p.Answer)
		require.True(t, got.CorrectStrict && got.CorrectFlexible && got.CorrectNumeric, "doc %d: %+v", p.Index, got)
		assert.Equal(t, p.Target, got.ExtractedStrict, "doc %d", p.Index)

		// The same number stated the CoT way, against the bare target.
		cot := strings.ReplaceAll(p.Answer[:strings.LastIndex(p.Answer, "####")], "<<", " <<") + "The answer is " + p.Target + ".\n"
		got = gradeOne(t, g, "gsm8k_cot", cot, p.Target)
		require.True(t, got.CorrectStrict && got.CorrectNumeric, "doc %d: %+v", p.Index, got)
	}
}

// cotResponses are 1319 realistic responses: each test solution restated as
// gsm8k_cot output ending in "The answer is N.".
func cotResponses(b testing.TB) []string {
	ps := gsm8kTest(b)
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Answer[:strings.LastIndex(p.Answer, "####")] + "The answer is " + p.Target + ".\n\n"
	}
	return out
}

// BenchmarkExtract1319 extracts strict and flexible answers from 1319
// responses (one op = the whole test split).
func BenchmarkExtract1319(b *testing.B) {
	resps := cotResponses(b)
	e := extractorFor(b, "gsm8k_cot")
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range resps {
			_ = e.Extract(r)
		}
	}
}

// BenchmarkGrade1319 is extraction plus exact-match and numeric scoring.
func BenchmarkGrade1319(b *testing.B) {
	resps := cotResponses(b)
	ps := gsm8kTest(b)
	g := NewLMEvalGrader()
	spec := builtinSpec(b, "gsm8k_cot")
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range resps {
			if _, err := g.Grade(spec, Reference{Target: ps[i].Target}, []string{r}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
