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
	// Problems: "11" → 1, "10" → 0.5, "0L" → 0, "11" → 1. Mean 0.625;
	// deviations 0.375, −0.125, −0.625, 0.375, squares sum 0.6875, sample
	// variance 0.229167, SE = sqrt(0.229167/4) = 0.239357. The interval is
	// Wilson's at n_eff = 4·p(1−p)/v with the plug-in variance v = 0.6875/4 =
	// 0.171875: n_eff = 4·0.234375/0.171875 = 5.454545, Wilson(0.625, 5.4545)
	// = [0.257876, 0.888814] (centre (p + z²/2n)/(1 + z²/n), half-width
	// z/(1 + z²/n)·sqrt(p(1−p)/n + z²/4n²)), the one the report's accuracy
	// table shows. Truncation 1 of 8 responses;
	// tokens (7·10 + 256)/8 = 40.75.
	rows := run("r1", "entropix", "11", "10", "0L", "11")
	for i := range rows {
		rows[i].RunKey = "fp@t"
	}
	s, err := Summarize(rows, keyStrict)
	require.NoError(t, err)
	assert.Equal(t, int32(4), s.N)
	assert.Equal(t, int32(2), s.Repeats)
	assert.InDelta(t, 0.625, s.Accuracy, 1e-15)
	assert.InDelta(t, 0.239357, s.SE, 1e-6)
	assert.InDelta(t, 0.257876, s.CILow, 1e-6)
	assert.InDelta(t, 0.888814, s.CIHigh, 1e-6)
	assert.InDelta(t, 1.0/8, s.TruncationRate, 1e-15)
	assert.InDelta(t, 40.75, s.MeanGenTokens, 1e-12)
	assert.Equal(t, "entropix", s.Sampler)
	assert.Equal(t, "fp@t", s.RunKey)

	dup := append(rows, rows[0])
	_, err = Summarize(dup, keyStrict)
	assert.ErrorContains(t, err, "repeat 0 of problem 0 appears twice")
	_, err = Summarize(append(rows, run("r2", "x", "1")...), keyStrict)
	assert.ErrorContains(t, err, "mixed")
	_, err = Summarize(rows, "loose")
	assert.Error(t, err)
}
