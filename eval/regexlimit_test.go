package eval

import (
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A regexes_to_ignore rule that cannot finish in time is an error naming the
// task, metric, filter and pattern (and, through gradeRecords, the item), never
// a rule skipped: skipping it scored "18aaa…a" unchanged, 0, where Python's
// re.sub leaves "18" and scores 1. The pattern backtracks exponentially (about
// 30 s in regexp2 and 11 s in CPython on this input), so it always times out.
func TestTimedOutIgnoreRuleIsAnErrorNotASkippedRule(t *testing.T) {
	const pattern = `(?<!z)(a|aa)+c|a`
	task := TaskSpec{Name: "hostile_task",
		Filters: []datasets.FilterPipeline{{Name: "none", Steps: []datasets.FilterStep{{Function: "take_first"}}}},
		Metrics: []datasets.MetricSpec{{Metric: "exact_match", RegexesToIgnore: []string{pattern}}}}
	g := NewLMEvalGrader()

	grades, err := g.Grade(task, Reference{Target: "18"}, []string{"18" + strings.Repeat("a", 8)})
	require.NoError(t, err, "a short response finishes")
	require.Equal(t, 1.0, grades[0].Scores[0].Value, "as Python's re.sub: every a removed")

	start := time.Now()
	_, err = g.Grade(task, Reference{Target: "18"}, []string{"18" + strings.Repeat("a", 34)})
	require.Error(t, err)
	for _, want := range []string{"task hostile_task", "metric exact_match", "filter none", "regexes_to_ignore", pattern, "prediction"} {
		assert.ErrorContains(t, err, want)
	}
	assert.Less(t, time.Since(start), hooks.RegexTimeout+3*time.Second, "bounded by the regex time limit")
}
