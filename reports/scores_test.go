package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run builds result rows: outcome[p][k] is repeat k of problem p (strict score),
// finish "length" when the outcome string says 'L'.
func run(id, sampler string, outcomes ...string) []ResultRow {
	var rows []ResultRow
	for p, reps := range outcomes {
		for k, o := range reps {
			r := ResultRow{RunID: id, Sampler: sampler, Seed: 1, ProblemID: int32(p), Repeat: int32(k),
				FinishReason: FinishStop, GenTokens: 10}
			r.Scores = []Score{{Metric: "exact_match", Filter: "strict-match", Value: 0}}
			switch o {
			case '1':
				r.Scores = []Score{{Metric: "exact_match", Filter: "strict-match", Value: 1}}
			case 'L':
				r.FinishReason, r.GenTokens = FinishLength, 256
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func TestSummarize(t *testing.T) {
	// Problems: "11" → 1, "10" → 0.5, "0L" → 0. Mean 0.5, SE = sqrt(0.25/3) =
	// 0.288675 (see TestAccuracyOf); truncation 1 of 6 responses; tokens
	// (5·10 + 256)/6 = 51.
	rows := run("r1", "entropix", "11", "10", "0L")
	s, err := Summarize(rows, keyStrict)
	require.NoError(t, err)
	assert.Equal(t, int32(3), s.N)
	assert.Equal(t, int32(2), s.Repeats)
	assert.InDelta(t, 0.5, s.Accuracy, 1e-15)
	assert.InDelta(t, 0.288675, s.SE, 1e-6)
	assert.InDelta(t, 0.125334, s.CILow, 1e-6)
	assert.InDelta(t, 1.0/6, s.TruncationRate, 1e-15)
	assert.InDelta(t, 51, s.MeanGenTokens, 1e-12)
	assert.Equal(t, "entropix", s.Sampler)

	dup := append(rows, rows[0])
	_, err = Summarize(dup, keyStrict)
	assert.ErrorContains(t, err, "problem 0 repeat 0 appears twice")
	_, err = Summarize(append(rows, run("r2", "x", "1")...), keyStrict)
	assert.ErrorContains(t, err, "mixed")
	_, err = Summarize(rows, "loose")
	assert.Error(t, err)
}
