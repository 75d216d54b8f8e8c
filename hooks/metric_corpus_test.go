package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// lm-eval's api/metrics.py registers bleu, chrf and ter as passthrough
// metrics, each with the aggregation of its name, all higher_is_better, and
// evaluator_utils caps their bootstrap at 100 resamples.
func TestCorpusMetricsAreLMEvals(t *testing.T) {
	assert.Equal(t, []string{"bleu", "chrf", "ter"}, CorpusMetricNames())
	for _, name := range CorpusMetricNames() {
		m, ok := LookupCorpusMetric(name)
		require.True(t, ok)
		assert.Equal(t, name, m.Name)
		assert.True(t, m.HigherIsBetter, name)
		assert.Equal(t, 100, m.MaxBootstrapIters, name)
		_, perDoc := LookupMetric(name)
		assert.False(t, perDoc, "%s is a corpus metric and a per-document one", name)
	}
	_, ok := LookupCorpusMetric("exact_match")
	assert.False(t, ok)
}

// Hand-derived: a perfect response scores 100 BLEU and chrF and 0 TER;
// "ab" against "ac" scores chrF 25 (textmetrics' hand-derived case); "a b"
// against "a c" needs one substitution for a two-word reference: TER 50.
func TestCorpusMetricsFold(t *testing.T) {
	perfect := []textmetrics.Item{{Refs: []string{"The cat sat on the mat."}, Pred: "The cat sat on the mat."}}
	cases := []struct {
		name  string
		items []textmetrics.Item
		want  float64
	}{
		{"bleu", perfect, 100},
		{"chrf", perfect, 100},
		{"ter", perfect, 0},
		{"chrf", []textmetrics.Item{{Refs: []string{"ac"}, Pred: "ab"}}, 25},
		{"ter", []textmetrics.Item{{Refs: []string{"a c"}, Pred: "a b"}}, 50},
	}
	for _, c := range cases {
		m, _ := LookupCorpusMetric(c.name)
		got, err := m.Fold(c.items)
		require.NoError(t, err, c.name)
		assert.InDelta(t, c.want, got, 1e-9, c.name)
	}
}
