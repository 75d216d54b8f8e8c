package runreport

import (
	"slices"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/stretchr/testify/assert"
)

// Problem 0: both samplers right; 1: they disagree; 2: both wrong. Each
// response has 4 tokens, so a problem costs 8.
func TestSelectDetailPicksByInterest(t *testing.T) {
	rows := concat(scored("greedy", 0, 1, 1, 0), scored("x", 0, 1, 0, 0))
	order := browserOrder(rows, []string{"greedy", "x"})
	strict := func(r *reports.ResultRow) bool { return r.Correct(reports.FilterStrict) }
	problemsOf := func(detail map[int]bool) []int32 {
		var ids []int32
		for i := range detail {
			if !slices.Contains(ids, rows[i].ProblemID) {
				ids = append(ids, rows[i].ProblemID)
			}
		}
		slices.Sort(ids)
		return ids
	}
	for _, tc := range []struct {
		budget int
		want   []int32
	}{
		{8, []int32{1}},        // the disagreement first
		{16, []int32{1, 2}},    // then the problem all got wrong
		{24, []int32{0, 1, 2}}, // everything
		{7, nil},
	} {
		got, note := selectDetail(rows, order, tc.budget, strict)
		set := map[int]bool{}
		for i := range got {
			set[i] = true
		}
		assert.Equal(t, tc.want, problemsOf(set), "budget %d", tc.budget)
		assert.Equal(t, tc.budget >= 24, note == "", "budget %d: note %q", tc.budget, note)
	}
}
