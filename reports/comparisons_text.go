package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Headline is the row in one sentence, for the top of a page or a terminal:
// "entropix +2.1 pp [95% CI +0.1, +4.0], p = 0.038, Holm p = 0.076 (2 tests),
// n = 1319 problems × 3 samples; sensitivity ±2.6 pp". The page, the terminal
// and compare print the same sentence.
func (r ComparisonRow) Headline() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s pp [95%% CI %s], %sp %s", r.Sampler, SignedPP(r.Delta), r.Interval(), sidedness(r.Alternative), equalsP(r.P))
	if r.PHolm.Valid {
		fmt.Fprintf(&b, ", Holm p %s (%s)", equalsP(r.PHolm.V), plural(int(r.HolmM), "test"))
	}
	fmt.Fprintf(&b, ", n = %d problems%s", r.NProblems, r.samplesPhrase())
	switch {
	case r.NDiffering == 0:
		b.WriteString("; no problem differs: nothing to test")
	case r.MDE80 > 0:
		fmt.Fprintf(&b, "; sensitivity ±%.1f pp", 100*r.MDE80)
	}
	return b.String()
}

// Interval is the headline interval as text: "+0.1, +4.0", or for one-sided
// tests the bound that exists ("≤ −1.3", "≥ +0.4").
func (r ComparisonRow) Interval() string {
	switch r.Alternative {
	case Less:
		return "≤ " + SignedPP(r.CIHigh)
	case Greater:
		return "≥ " + SignedPP(r.CILow)
	}
	return SignedPP(r.CILow) + ", " + SignedPP(r.CIHigh)
}

// BootInterval is the bootstrap interval as text; an end that prints as 0.0
// carries the share of resamples at or beyond 0, which says on which side of
// 0 it lies: "−16.7, 0.0 (2.4% ≥ 0)".
func (r ComparisonRow) BootInterval() string {
	end := func(x float64) string {
		s := SignedPP(x)
		if strings.TrimLeft(s, "+−") != "0.0" || r.BootResamples == 0 {
			return s
		}
		side := "≤ 0"
		if r.Delta < 0 {
			side = "≥ 0"
		}
		return fmt.Sprintf("%s (%.1f%% %s)", s, 100*float64(r.BootBeyondZero)/float64(r.BootResamples), side)
	}
	return end(r.BootCILow) + ", " + end(r.BootCIHigh)
}

// SensitivityNote is the sentence that explains MDE80 under a table.
func SensitivityNote() string {
	return "Sensitivity (MDE): the |Δ| this run's test would detect with 80% power at the level of its Holm step (α/m for the smallest p of m; α outside a family), from the SE of the per-problem differences with t quantiles on n − 1 df — what this run could see, not a planned power (entropix-eval power plans one)."
}

// plural is "1 test", "3 tests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sidedness(alt string) string {
	if alt == Less || alt == Greater {
		return "one-sided "
	}
	return ""
}

// samplesPhrase says how many samples each side has per problem: nothing
// with one each, " × 3 samples" when equal, and "deterministic" for a side
// whose samples are copies of one another.
func (r ComparisonRow) samplesPhrase() string {
	side := func(k int32, det bool) string {
		if det {
			return "deterministic"
		}
		if k == 1 {
			return "1 sample"
		}
		return fmt.Sprintf("%d samples", k)
	}
	switch {
	case r.SamplerDeterministic && r.BaselineDeterministic:
		return ", both deterministic"
	case r.SamplerDeterministic || r.BaselineDeterministic:
		return fmt.Sprintf(" (sampler %s, baseline %s)", side(r.SamplesPerProblem, r.SamplerDeterministic), side(r.BaselineSamplesPerProblem, r.BaselineDeterministic))
	case r.SamplesPerProblem <= 1 && r.BaselineSamplesPerProblem <= 1:
		return ""
	case r.SamplesPerProblem == r.BaselineSamplesPerProblem:
		return fmt.Sprintf(" × %d samples", r.SamplesPerProblem)
	}
	return fmt.Sprintf(" × %d samples (baseline %d)", r.SamplesPerProblem, r.BaselineSamplesPerProblem)
}

// equalsP is "= 0.038", but "< 0.001" rather than "= < 0.001".
func equalsP(p float64) string {
	f := FormatP(p)
	if strings.HasPrefix(f, "<") {
		return f
	}
	return "= " + f
}

// SignedPP formats a fraction as signed percentage points with one decimal
// ("+2.1", "−0.4" with a true minus sign); exactly 0 is "0.0", a non-zero
// value that rounds to it keeps its sign; "–" when undefined.
func SignedPP(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	if x == 0 {
		return "0.0"
	}
	s := fmt.Sprintf("%+.1f", 100*x)
	return strings.Replace(s, "-", "−", 1)
}

// FormatP formats a p-value with two significant digits ("0.049", "0.24",
// "1.0"), or "< 0.001".
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	}
	return twoSignificant(p)
}

// twoSignificant prints x > 0 with two significant digits in fixed notation.
func twoSignificant(x float64) string {
	decimals := max(0, 1-int(math.Floor(math.Log10(x))))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	// Rounding up to the next decade (0.0996 → "0.100") adds a digit.
	if y, _ := strconv.ParseFloat(s, 64); decimals > 0 && y >= math.Pow(10, float64(2-decimals)) {
		s = strconv.FormatFloat(x, 'f', decimals-1, 64)
	}
	return s
}
