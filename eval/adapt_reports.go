package eval

import (
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/reports"
)

// ReportsArrow writes results.arrow and traces.arrow with package reports' schemas.
type ReportsArrow struct{}

func (ReportsArrow) WriteResults(path string, rows []reports.ResultRow) error {
	return reports.WriteResults(path, rows)
}

func (ReportsArrow) WriteTraces(path string, rows []TraceRow) error {
	out := make([]reports.TraceRow, len(rows))
	for i, r := range rows {
		id, err := int32Of("problem index", r.ProblemIndex)
		if err != nil {
			return err
		}
		t := r.Token
		out[i] = reports.TraceRow{
			RunID: r.RunID, Task: r.Task, ProblemID: id, Repeat: int32(r.Repeat), Step: int32(r.Step),
			TokenID: t.Token, TokenText: t.Text, Strategy: t.Strategy,
			Entropy: t.Entropy, Varentropy: t.Varentropy,
			AttnEntropy: finite(t.AttnEntropy), AttnVarentropy: finite(t.AttnVarentropy),
			Agreement: finite(t.Agreement), InteractionStrength: finite(t.Interaction),
			Temperature: t.Temperature, LogProb: t.LogProb, TailMass: t.TailMass,
		}
		// The sampler reports "off" as TopK 0, TopP 1 (or 0 for deterministic
		// strategies), MinP 0; the columns are null then.
		if t.TopK > 0 {
			out[i].TopK = reports.Some(int32(t.TopK))
		}
		if t.TopP > 0 && t.TopP < 1 {
			out[i].TopP = reports.Some(t.TopP)
		}
		if t.MinP > 0 {
			out[i].MinP = reports.Some(t.MinP)
		}
	}
	return reports.WriteTraces(path, out)
}

// finite maps NaN (a statistic the engine did not compute) to a null column.
func finite(f float64) reports.Opt[float64] {
	if math.IsNaN(f) {
		return reports.None[float64]()
	}
	return reports.Some(f)
}

func int32Of(what string, v int) (int32, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s %d does not fit the int32 column", what, v)
	}
	return int32(v), nil
}
