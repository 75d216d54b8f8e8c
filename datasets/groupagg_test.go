package datasets

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestGroupAggregatesFromSharedYAML(t *testing.T) {
	ix, _ := sharedTaskSource(t)
	e, ok := ix.Lookup("bbh_cot_fewshot")
	require.True(t, ok)
	assert.Equal(t, []AggregateMetric{{Metric: "exact_match", Filters: []string{"get-answer"}, WeightBySize: true}}, e.Aggregates,
		"filter_list given as one string is a one-name list")
	stem, ok := ix.Lookup("stem")
	require.True(t, ok, "an inline subgroup of mmlu")
	assert.Equal(t, []AggregateMetric{{Metric: "acc", WeightBySize: true}}, stem.Aggregates, "no filter_list: discovered from results")
}

func TestParseAggregates(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []AggregateMetric
		err        string
	}{
		{"defaults", "- metric: exact_match", []AggregateMetric{{Metric: "exact_match", WeightBySize: true}}, ""},
		{"unweighted list", "- metric: acc\n  weight_by_size: false\n  filter_list: [none, strict-match]\n  aggregation: mean",
			[]AggregateMetric{{Metric: "acc", Filters: []string{"none", "strict-match"}}}, ""},
		{"two metrics", "- metric: a\n- metric: b\n  filter_list: x",
			[]AggregateMetric{{Metric: "a", WeightBySize: true}, {Metric: "b", Filters: []string{"x"}, WeightBySize: true}}, ""},
		{"median refused", "- metric: acc\n  aggregation: median", nil, "aggregation: median: only mean"},
		{"unknown key", "- metric: acc\n  weights: 2", nil, `unsupported key "weights"`},
		{"no metric", "- filter_list: none", nil, "metric: want a metric name"},
		{"bad weight", "- metric: acc\n  weight_by_size: yes please", nil, "weight_by_size: want true or false"},
		{"bad filter", "- metric: acc\n  filter_list: [1]", nil, "filter_list: want filter names"},
		{"one mapping is a list of one", "metric: acc", []AggregateMetric{{Metric: "acc", WeightBySize: true}}, ""},
		{"not a list", "acc", nil, "want a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			require.NoError(t, yaml.Unmarshal([]byte(tc.yaml), &v))
			got, err := parseAggregates(v)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseAggregates(f *testing.F) {
	f.Add("- metric: acc\n  filter_list: [a]\n  weight_by_size: true")
	f.Add("- {metric: x, aggregation: mean}")
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if yaml.Unmarshal([]byte(s), &v) != nil {
			return
		}
		aggs, err := parseAggregates(v)
		for _, a := range aggs {
			if err == nil && a.Metric == "" {
				t.Fatalf("accepted an aggregate without a metric: %q", s)
			}
		}
	})
}
