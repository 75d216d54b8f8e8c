package reports

import (
	"errors"
	"fmt"
	"slices"
)

// ProblemScore is one problem's score under a score key, averaged over its repeats.
type ProblemScore struct {
	ProblemID int32
	Score     float64 // mean of the problem's responses' scores (for 0/1 metrics: the fraction correct)
	Responses int
}

// ProblemScores groups one run's result rows by problem (sorted by id) and
// averages each problem's repeats, so that every problem weighs the same in the
// accuracy and the bootstrap whatever its number of completed repeats.
// A (problem, repeat) pair present twice is an error: resume must not count a
// response twice.
func ProblemScores(rows []ResultRow, f ScoreKey) ([]ProblemScore, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	type key struct{ problem, repeat int32 }
	type sum struct {
		total float64
		n     int
	}
	seen := make(map[key]bool, len(rows))
	byProblem := make(map[int32]*sum)
	for i := range rows {
		r := &rows[i]
		k := key{r.ProblemID, r.Repeat}
		if seen[k] {
			return nil, fmt.Errorf("run %q: problem %d repeat %d appears twice", r.RunID, r.ProblemID, r.Repeat)
		}
		seen[k] = true
		v, ok := r.Score(f)
		if !ok {
			return nil, fmt.Errorf("run %q: problem %d repeat %d has no %s score", r.RunID, r.ProblemID, r.Repeat, f)
		}
		c := byProblem[r.ProblemID]
		if c == nil {
			c = new(sum)
			byProblem[r.ProblemID] = c
		}
		c.total += v
		c.n++
	}
	out := make([]ProblemScore, 0, len(byProblem))
	for id, c := range byProblem {
		out = append(out, ProblemScore{ProblemID: id, Score: c.total / float64(c.n), Responses: c.n})
	}
	slices.SortFunc(out, func(a, b ProblemScore) int { return int(a.ProblemID) - int(b.ProblemID) })
	return out, nil
}

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
	ps, err := ProblemScores(rows, f)
	if err != nil {
		return SummaryRow{}, fmt.Errorf("summarize: %w", err)
	}
	scores := make([]float64, len(ps))
	repeats := 0
	for i, p := range ps {
		scores[i] = p.Score
		repeats = max(repeats, p.Responses)
	}
	acc, err := AccuracyOf(scores)
	if err != nil {
		return SummaryRow{}, fmt.Errorf("summarize run %q: %w", first.RunID, err)
	}
	return SummaryRow{
		RunID: first.RunID, Sampler: first.Sampler, Seed: first.Seed, Filter: f,
		N: int32(acc.N), Repeats: int32(repeats),
		Accuracy: acc.Mean, SE: acc.SE, CILow: acc.Wilson[0], CIHigh: acc.Wilson[1],
		TruncationRate: float64(truncated) / float64(len(rows)),
		MeanGenTokens:  float64(tokens) / float64(len(rows)),
	}, nil
}
