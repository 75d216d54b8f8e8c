package reports

import (
	"errors"
	"fmt"
)

// Summarize computes one run's summary row under score key f. The rows must come
// from one run (one run_id).
func Summarize(rows []ResultRow, f ScoreKey) (SummaryRow, error) {
	if len(rows) == 0 {
		return SummaryRow{}, errors.New("summarize: no result rows")
	}
	first := &rows[0]
	var truncated, tokens int64
	for i := range rows {
		if rows[i].RunID != first.RunID {
			return SummaryRow{}, fmt.Errorf("summarize: rows of runs %q and %q mixed", first.RunID, rows[i].RunID)
		}
		if rows[i].FinishReason == FinishLength {
			truncated++
		}
		tokens += int64(rows[i].GenTokens)
	}
	if err := f.check(); err != nil {
		return SummaryRow{}, fmt.Errorf("summarize: %w", err)
	}
	// The same problem-level statistic as the report's accuracy table and
	// comparisons.arrow (ClusteredAccuracyOf), over this seed's samples only.
	scored := make([]Scored, len(rows))
	for i := range rows {
		r := &rows[i]
		v, ok := r.Score(f)
		if !ok {
			return SummaryRow{}, fmt.Errorf("summarize: run %q: problem %d repeat %d has no %s score", r.RunID, r.ProblemID, r.Repeat, f)
		}
		scored[i] = Scored{Sampler: r.Sampler, Filter: string(f), Seed: r.Seed, Repeat: r.Repeat, Problem: r.ProblemID, Score: v}
	}
	groups, err := GroupScores(scored)
	if err != nil {
		return SummaryRow{}, fmt.Errorf("summarize: run %q: %w", first.RunID, err)
	}
	ps := groups[SamplerFilter{first.Sampler, string(f)}]
	acc, err := ClusteredAccuracyOf(ps)
	if err != nil {
		return SummaryRow{}, fmt.Errorf("summarize run %q: %w", first.RunID, err)
	}
	_, repeats := ps.SamplesPerProblem()
	return SummaryRow{
		RunKey: first.RunKey, RunID: first.RunID, Sampler: first.Sampler, SamplerSpec: first.SamplerSpec, Model: first.Model, Date: first.Date,
		Seed: first.Seed, Filter: f,
		N: int32(acc.N), Repeats: int32(repeats),
		Accuracy: acc.Mean, SE: acc.SE, CILow: acc.CILow, CIHigh: acc.CIHigh,
		TruncationRate: float64(truncated) / float64(len(rows)),
		MeanGenTokens:  float64(tokens) / float64(len(rows)),
	}, nil
}
