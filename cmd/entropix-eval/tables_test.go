package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/entropix-eval/entropix-eval/eval"
)

// The tables size their columns to what they hold: a long run label widens
// the first column, short ones keep it narrow.
func TestGroupTableColumnsFitContent(t *testing.T) {
	res := &eval.GroupResults{
		Order: []string{"g|greedy/seed=0", "sub|entropix:frog/seed=0"},
		Groups: map[string]eval.RunSummary{
			"g|greedy/seed=0": {"score_keys": []string{"exact_match,strict"}, "exact_match,strict": 0.5,
				"exact_match_stderr,strict": 0.25, "sample_len": 6},
			"sub|entropix:frog/seed=0": {"score_keys": []string{"exact_match,strict", "exact_match,flex"}, "exact_match,strict": 1.0,
				"exact_match_stderr,strict": nil, "exact_match,flex": 0.125, "exact_match_stderr,flex": 0.0625, "sample_len": 1},
		},
	}
	want := "" +
		"group|run                 exact_match,strict  exact_match,flex  n\n" +
		"g|greedy/seed=0                50.0% ± 25.0%                    6\n" +
		"sub|entropix:frog/seed=0        100.0% ± n/a      12.5% ± 6.2%  1\n"
	assert.Equal(t, want, groupTable(res))
}

func TestRescoreTableColumnsFitContent(t *testing.T) {
	got := rescoreTable(map[string]float64{"greedy/seed=0": 0.5}, map[string]float64{"greedy/seed=0": 0.75, "min_p/seed=1": 1})
	want := "" +
		"run            before   after\n" +
		"greedy/seed=0   50.0%   75.0%\n" +
		"min_p/seed=1      n/a  100.0%\n"
	assert.Equal(t, want, got)
}
