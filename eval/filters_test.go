package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
)

func step(fn string, kv ...any) datasets.FilterStep {
	p := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i].(string)] = kv[i+1]
	}
	return datasets.FilterStep{Function: fn, Params: p}
}

func pipeline(t *testing.T, steps ...datasets.FilterStep) *Pipeline {
	t.Helper()
	p, err := CompilePipeline(datasets.FilterPipeline{Name: "test", Steps: steps})
	require.NoError(t, err)
	return p
}

// Filter pipelines compose the registered filters (each tested in package
// hooks): expected values follow lm_eval/filters/{extraction,selection}.py
// at 4e7e0d4, worked by hand.
func TestFilterFunctionsFollowLMEval(t *testing.T) {
	tests := []struct {
		name   string
		steps  []datasets.FilterStep
		resps  []string
		want   []string
		perDoc bool
	}{
		// RegexFilter: findall, group_select indexes the matches (negative from the
		// end), a tuple keeps its first non-empty group, then strip().
		{"regex first match", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`)}, []string{"a 1 b 22 c 333"}, []string{"1"}, false},
		{"regex group_select -1", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`, "group_select", int64(-1))}, []string{"a 1 b 22 c 333"}, []string{"333"}, false},
		{"regex group_select -2", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`, "group_select", int64(-2))}, []string{"a 1 b 22 c 333"}, []string{"22"}, false},
		{"regex group_select from JSON", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`, "group_select", -1.0)}, []string{"1 2"}, []string{"2"}, false},
		{"regex default fallback", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`)}, []string{"none"}, []string{"[invalid]"}, false},
		{"regex custom fallback", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`, "fallback", "N/A")}, []string{"none"}, []string{"N/A"}, false},
		{"regex default pattern is gsm8k's", []datasets.FilterStep{step("regex")}, []string{"x\n#### 42"}, []string{"42"}, false},
		{"regex look-behind (BBH)", []datasets.FilterStep{step("regex", "regex_pattern", `(?<=the answer is )(.*)(?=.)`)}, []string{"So the answer is (C)."}, []string{"(C)"}, false},
		{"regex Unicode \\d as Python", []datasets.FilterStep{step("regex", "regex_pattern", `(\d+)`)}, []string{"x ٣٤"}, []string{"٣٤"}, false},
		{"regex named group, Python syntax", []datasets.FilterStep{step("regex", "regex_pattern", `(?P<n>\d)(?P=n)`)}, []string{"12 33"}, []string{"3"}, false},
		{"regex each response", []datasets.FilterStep{step("regex", "regex_pattern", `(\d)`)}, []string{"1", "x", "3"}, []string{"1", "[invalid]", "3"}, false},
		// take_first: the doc's first response only.
		{"take_first", []datasets.FilterStep{step("take_first")}, []string{"a", "b"}, []string{"a"}, true},
		// take_first_k then majority_vote: Counter.most_common keeps first-seen order on ties.
		{"majority", []datasets.FilterStep{step("majority_vote"), step("take_first")}, []string{"1", "2", "2", "1", "2"}, []string{"2"}, true},
		{"majority tie goes to first seen", []datasets.FilterStep{step("majority_vote"), step("take_first")}, []string{"7", "5", "5", "7"}, []string{"7"}, true},
		{"take_first_k then vote", []datasets.FilterStep{step("take_first_k", "k", int64(3)), step("majority_vote"), step("take_first")}, []string{"4", "9", "9", "4", "4"}, []string{"9"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, perDoc, err := pipeline(t, tt.steps...).Apply(tt.resps, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.perDoc, perDoc)
		})
	}
}

func TestTakeFirstKNeedsEnoughResponses(t *testing.T) {
	_, _, err := pipeline(t, step("take_first_k", "k", int64(8))).Apply([]string{"a", "b"}, nil)
	assert.ErrorContains(t, err, "need at least 8 responses per doc, have 2")
	_, err = CompilePipeline(datasets.FilterPipeline{Name: "x", Steps: []datasets.FilterStep{step("take_first_k")}})
	assert.ErrorContains(t, err, "k: want a positive integer")
}

// TestSelfConsistencyGradesTheDocTogether runs gsm8k_cot_self_consistency's
// three pipelines over one doc's responses: score-first takes the first,
// maj@64 votes over all, maj@8 over the first eight.
func TestSelfConsistencyGradesTheDocTogether(t *testing.T) {
	spec := builtinSpec(t, "gsm8k_cot_self_consistency")
	require.Equal(t, 64, spec.Repeats)
	resps := make([]string, 64)
	for i := range resps {
		switch {
		case i == 0:
			resps[i] = "The answer is 17."
		case i < 8:
			resps[i] = "The answer is 5." // 7 of the first 8
		default:
			resps[i] = "The answer is 18." // 56 of 64
		}
	}
	grades, err := NewLMEvalGrader().Grade(spec, Reference{Target: "18"}, resps)
	require.NoError(t, err)
	require.Len(t, grades, 64)
	want := map[string]string{"score-first": "17", "maj@64": "18", "maj@8": "5"}
	for _, g := range grades {
		for _, a := range g.Answers {
			assert.Equal(t, want[a.Filter], a.Answer, a.Filter)
		}
		for _, s := range g.Scores {
			if s.Metric == "exact_match" {
				assert.Equal(t, map[string]float64{"score-first": 0, "maj@64": 1, "maj@8": 0}[s.Filter], s.Value, s.Filter)
			}
		}
	}
}
