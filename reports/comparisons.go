package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Column names of comparisons.arrow (besides sampler, filter, ci_low, ci_high
// and p_holm, shared with other files). Scripts depend on them.
const (
	ColBaseline                  = "baseline"
	ColPrimary                   = "primary"
	ColNProblems                 = "n_problems"
	ColSamplesPerProblem         = "samples_per_problem"
	ColBaselineSamplesPerProblem = "baseline_samples_per_problem"
	ColSamplerAcc                = "sampler_acc"
	ColBaselineAcc               = "baseline_acc"
	ColDelta                     = "delta"
	ColDeltaSE                   = "delta_se"
	ColBootCILow                 = "boot_ci_low"
	ColBootCIHigh                = "boot_ci_high"
	ColBootResamples             = "boot_resamples"
	ColP                         = "p"
	ColPTest                     = "p_test"
	ColMDE80                     = "mde80"
	ColMcNemarB                  = "mcnemar_b"
	ColMcNemarC                  = "mcnemar_c"
	ColMcNemarP                  = "mcnemar_p"
)

// ComparisonRow is one sampler against the baseline under one filter, on the
// problems both answered (comparisons.arrow). Accuracies and deltas are
// fractions (delta in [−1, 1]); every statistic is over problems, each
// problem's samples (seeds × repeats) averaged first (ComparePaired).
type ComparisonRow struct {
	Sampler  string
	Baseline string
	Filter   string
	// Primary marks the declared primary filter, whose rows form the Holm family.
	Primary   bool
	NProblems int32
	// SamplesPerProblem is the sampler's most samples on any problem (seeds ×
	// repeats); BaselineSamplesPerProblem the baseline's.
	SamplesPerProblem         int32
	BaselineSamplesPerProblem int32
	SamplerAcc                float64
	BaselineAcc               float64
	Delta                     float64 // SamplerAcc − BaselineAcc
	DeltaSE                   float64 // sd of per-problem differences / √n; NaN for n < 2
	CILow, CIHigh             float64 // Delta ± 1.96·DeltaSE
	BootCILow, BootCIHigh     float64 // paired bootstrap percentile interval over problems
	BootResamples             int32
	P                         float64
	PTest                     string       // SignFlipExact or SignFlipMC
	PHolm                     Opt[float64] // Holm over the primary rows; absent for secondary rows
	MDE80                     float64      // minimum detectable |Δ| at 80% power, α = 0.05
	// McNemar's discordant counts (sampler right & baseline wrong, the reverse)
	// and its p: present only with exactly one 0/1 sample per problem per side.
	McNemarB, McNemarC Opt[int32]
	McNemarP           Opt[float64]
}

var comparisonColumns = []column[ComparisonRow]{
	stringColumn(ColSampler, func(r *ComparisonRow) *string { return &r.Sampler }),
	stringColumn(ColBaseline, func(r *ComparisonRow) *string { return &r.Baseline }),
	stringColumn(ColFilter, func(r *ComparisonRow) *string { return &r.Filter }),
	boolColumn(ColPrimary, func(r *ComparisonRow) *bool { return &r.Primary }),
	int32Column(ColNProblems, func(r *ComparisonRow) *int32 { return &r.NProblems }),
	int32Column(ColSamplesPerProblem, func(r *ComparisonRow) *int32 { return &r.SamplesPerProblem }),
	int32Column(ColBaselineSamplesPerProblem, func(r *ComparisonRow) *int32 { return &r.BaselineSamplesPerProblem }),
	float64Column(ColSamplerAcc, func(r *ComparisonRow) *float64 { return &r.SamplerAcc }),
	float64Column(ColBaselineAcc, func(r *ComparisonRow) *float64 { return &r.BaselineAcc }),
	float64Column(ColDelta, func(r *ComparisonRow) *float64 { return &r.Delta }),
	float64Column(ColDeltaSE, func(r *ComparisonRow) *float64 { return &r.DeltaSE }),
	float64Column(ColCILow, func(r *ComparisonRow) *float64 { return &r.CILow }),
	float64Column(ColCIHigh, func(r *ComparisonRow) *float64 { return &r.CIHigh }),
	float64Column(ColBootCILow, func(r *ComparisonRow) *float64 { return &r.BootCILow }),
	float64Column(ColBootCIHigh, func(r *ComparisonRow) *float64 { return &r.BootCIHigh }),
	int32Column(ColBootResamples, func(r *ComparisonRow) *int32 { return &r.BootResamples }),
	float64Column(ColP, func(r *ComparisonRow) *float64 { return &r.P }),
	stringColumn(ColPTest, func(r *ComparisonRow) *string { return &r.PTest }),
	optFloat64Column(ColPHolm, func(r *ComparisonRow) *Opt[float64] { return &r.PHolm }),
	float64Column(ColMDE80, func(r *ComparisonRow) *float64 { return &r.MDE80 }),
	optInt32Column(ColMcNemarB, func(r *ComparisonRow) *Opt[int32] { return &r.McNemarB }),
	optInt32Column(ColMcNemarC, func(r *ComparisonRow) *Opt[int32] { return &r.McNemarC }),
	optFloat64Column(ColMcNemarP, func(r *ComparisonRow) *Opt[float64] { return &r.McNemarP }),
}

// ComparisonSchema is comparisons.arrow's schema. Treat it as read-only.
var ComparisonSchema = schemaOf(KindComparisons, comparisonColumns)

func checkComparisonRow(r *ComparisonRow) error {
	switch r.PTest {
	case SignFlipExact, SignFlipMC:
	default:
		return fmt.Errorf("p_test %q: want %s or %s", r.PTest, SignFlipExact, SignFlipMC)
	}
	if r.PHolm.Valid && !r.Primary {
		return fmt.Errorf("sampler %q filter %q: p_holm on a secondary row", r.Sampler, r.Filter)
	}
	return nil
}

// WriteComparisons writes rows as a complete comparisons.arrow file carrying
// p in its schema metadata.
func WriteComparisons(path string, rows []ComparisonRow, p Provenance) error {
	return writeAll(path, ComparisonSchema, comparisonColumns, checkComparisonRow, rows, WithProvenance(p))
}

// ReadComparisons reads every row of a comparisons.arrow file.
func ReadComparisons(path string) ([]ComparisonRow, error) {
	return readAll(path, KindComparisons, comparisonColumns, checkComparisonRow)
}

// MarshalComparisonsJSON encodes rows as a JSON array of objects whose keys are
// comparisons.arrow's column names, in column order; NaN and absent values are
// null.
func MarshalComparisonsJSON(rows []ComparisonRow) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for j, c := range comparisonColumns {
			if j > 0 {
				b.WriteString(", ")
			}
			key, _ := json.Marshal(c.field.Name)
			v := c.value(&rows[i])
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = nil
			}
			val, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("comparison row %d, %s: %w", i, c.field.Name, err)
			}
			b.Write(key)
			b.WriteString(": ")
			b.Write(val)
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	return b.Bytes(), nil
}

// Headline is the row in one sentence, for the top of a page or a terminal:
// "entropix +2.1 pp [95% CI +0.1, +4.0], p = 0.04, Holm p = 0.08, n = 1319
// problems × 3 samples; detectable: ±2.4 pp".
func (r ComparisonRow) Headline() string {
	var b strings.Builder
	// "p = 0.04", but "p < 0.001" rather than "p = < 0.001".
	equals := func(p float64) string {
		f := FormatP(p)
		if strings.HasPrefix(f, "<") {
			return f
		}
		return "= " + f
	}
	fmt.Fprintf(&b, "%s %s pp [95%% CI %s, %s], p %s", r.Sampler, SignedPP(r.Delta), SignedPP(r.CILow), SignedPP(r.CIHigh), equals(r.P))
	if r.PHolm.Valid {
		fmt.Fprintf(&b, ", Holm p %s", equals(r.PHolm.V))
	}
	fmt.Fprintf(&b, ", n = %d problems", r.NProblems)
	if r.SamplesPerProblem > 1 || r.BaselineSamplesPerProblem > 1 {
		if r.SamplesPerProblem == r.BaselineSamplesPerProblem {
			fmt.Fprintf(&b, " × %d samples", r.SamplesPerProblem)
		} else {
			fmt.Fprintf(&b, " × %d samples (baseline %d)", r.SamplesPerProblem, r.BaselineSamplesPerProblem)
		}
	}
	switch {
	case r.MDE80 > 0:
		fmt.Fprintf(&b, "; detectable: ±%.1f pp", 100*r.MDE80)
	case r.MDE80 == 0: // no variance to size an effect by
		b.WriteString("; no problem differs")
	}
	return b.String()
}

// SignedPP formats a fraction as signed percentage points with one decimal
// ("+2.1", "−0.4" with a true minus sign); "–" when undefined.
func SignedPP(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	s := fmt.Sprintf("%+.1f", 100*x)
	if s == "-0.0" {
		s = "+0.0"
	}
	return strings.Replace(s, "-", "−", 1)
}

// FormatP formats a p-value: "< 0.001", three decimals below 0.01, else two.
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	case p < 0.01:
		return fmt.Sprintf("%.3f", p)
	}
	return fmt.Sprintf("%.2f", p)
}
