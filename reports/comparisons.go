package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Column names of comparisons.arrow (besides sampler, filter, ci_low, ci_high
// and p_holm, shared with other files). Scripts depend on them.
const (
	ColBaseline                  = "baseline"
	ColPrimary                   = "primary"
	ColAlternative               = "alternative"
	ColNProblems                 = "n_problems"
	ColNDiffering                = "n_differing"
	ColSamplesPerProblem         = "samples_per_problem"
	ColBaselineSamplesPerProblem = "baseline_samples_per_problem"
	ColSamplerDeterministic      = "sampler_deterministic"
	ColBaselineDeterministic     = "baseline_deterministic"
	ColSamplerAcc                = "sampler_acc"
	ColBaselineAcc               = "baseline_acc"
	ColDelta                     = "delta"
	ColDeltaSE                   = "delta_se"
	ColNormalCILow               = "normal_ci_low"
	ColNormalCIHigh              = "normal_ci_high"
	ColBootCILow                 = "boot_ci_low"
	ColBootCIHigh                = "boot_ci_high"
	ColBootResamples             = "boot_resamples"
	ColBootBeyondZero            = "boot_beyond_zero"
	ColP                         = "p"
	ColPTest                     = "p_test"
	ColHolmFamily                = "holm_family"
	ColHolmM                     = "holm_m"
	ColMDE80                     = "mde80"
	ColMDEAlpha                  = "mde_alpha"
	ColMcNemarB                  = "mcnemar_b"
	ColMcNemarC                  = "mcnemar_c"
	ColMcNemarP                  = "mcnemar_p"
	ColMcNemarTest               = "mcnemar_test"
)

// ComparisonRow is one sampler against the baseline under one filter, on the
// problems both answered (comparisons.arrow). Accuracies and deltas are
// fractions (delta in [−1, 1]); every statistic is over problems, each
// problem's samples (seeds × repeats) averaged first (ComparePaired).
type ComparisonRow struct {
	Sampler  string
	Baseline string
	Filter   string
	// Primary marks the declared primary filter, whose rows form the Holm
	// family under the task and sweep scopes.
	Primary bool
	// Alternative is the test's and the interval's: TwoSided, Less or Greater.
	Alternative string
	NProblems   int32
	// NDiffering counts the problems whose per-problem difference is not 0;
	// with none, nothing can be tested.
	NDiffering int32
	// SamplesPerProblem is the sampler's most samples on any problem (seeds ×
	// repeats); BaselineSamplesPerProblem the baseline's. A side whose samples
	// are identical on every problem (greedy over seeds) is Deterministic: its
	// samples count as one.
	SamplesPerProblem         int32
	BaselineSamplesPerProblem int32
	SamplerDeterministic      bool
	BaselineDeterministic     bool
	SamplerAcc                float64
	BaselineAcc               float64
	Delta                     float64 // SamplerAcc − BaselineAcc
	DeltaSE                   float64 // sd of per-problem differences / √n; NaN for n < 2
	// CILow, CIHigh is the headline interval: the inversion of the test that
	// gives P (PTest), so it excludes 0 exactly when P < 0.05. One-sided
	// alternatives leave one end at −1 or +1.
	CILow, CIHigh float64
	// NormalCILow, NormalCIHigh is Delta ± 1.96·DeltaSE, kept for comparison.
	NormalCILow, NormalCIHigh float64
	// BootCILow, BootCIHigh is the paired bootstrap percentile interval over
	// problems; BootBeyondZero counts the resampled means at or beyond 0 on
	// the far side from Delta, which says how near an end printed as 0.0 is.
	BootCILow, BootCIHigh float64
	BootResamples         int32
	BootBeyondZero        int32
	P                     float64
	PTest                 string // SignFlipExact or SignFlipMC
	// PHolm is Holm's adjusted p within the family HolmFamily of HolmM tests;
	// absent (and HolmFamily "") for rows in no family and for rows where no
	// problem differs, which cannot be rejected and are left out of it.
	PHolm      Opt[float64]
	HolmFamily string
	HolmM      int32
	// MDE80 is this run's sensitivity: the |Δ| its test would detect with 80%
	// power at MDEAlpha, the level of the Holm step the row stands at (α/m
	// for the smallest p of m), with t quantiles on n − 1 df; not a planned
	// power (see the power command).
	MDE80    float64
	MDEAlpha float64
	// McNemar's discordant counts (sampler right & baseline wrong, the
	// reverse) and its exact p: present only with exactly one 0/1 sample per
	// problem per side; McNemarTest names the test ("" when absent).
	McNemarB, McNemarC Opt[int32]
	McNemarP           Opt[float64]
	McNemarTest        string
}

var comparisonColumns = []column[ComparisonRow]{
	stringColumn(ColSampler, func(r *ComparisonRow) *string { return &r.Sampler }),
	stringColumn(ColBaseline, func(r *ComparisonRow) *string { return &r.Baseline }),
	stringColumn(ColFilter, func(r *ComparisonRow) *string { return &r.Filter }),
	boolColumn(ColPrimary, func(r *ComparisonRow) *bool { return &r.Primary }),
	stringColumn(ColAlternative, func(r *ComparisonRow) *string { return &r.Alternative }),
	int32Column(ColNProblems, func(r *ComparisonRow) *int32 { return &r.NProblems }),
	int32Column(ColNDiffering, func(r *ComparisonRow) *int32 { return &r.NDiffering }),
	int32Column(ColSamplesPerProblem, func(r *ComparisonRow) *int32 { return &r.SamplesPerProblem }),
	int32Column(ColBaselineSamplesPerProblem, func(r *ComparisonRow) *int32 { return &r.BaselineSamplesPerProblem }),
	boolColumn(ColSamplerDeterministic, func(r *ComparisonRow) *bool { return &r.SamplerDeterministic }),
	boolColumn(ColBaselineDeterministic, func(r *ComparisonRow) *bool { return &r.BaselineDeterministic }),
	float64Column(ColSamplerAcc, func(r *ComparisonRow) *float64 { return &r.SamplerAcc }),
	float64Column(ColBaselineAcc, func(r *ComparisonRow) *float64 { return &r.BaselineAcc }),
	float64Column(ColDelta, func(r *ComparisonRow) *float64 { return &r.Delta }),
	float64Column(ColDeltaSE, func(r *ComparisonRow) *float64 { return &r.DeltaSE }),
	float64Column(ColCILow, func(r *ComparisonRow) *float64 { return &r.CILow }),
	float64Column(ColCIHigh, func(r *ComparisonRow) *float64 { return &r.CIHigh }),
	float64Column(ColNormalCILow, func(r *ComparisonRow) *float64 { return &r.NormalCILow }),
	float64Column(ColNormalCIHigh, func(r *ComparisonRow) *float64 { return &r.NormalCIHigh }),
	float64Column(ColBootCILow, func(r *ComparisonRow) *float64 { return &r.BootCILow }),
	float64Column(ColBootCIHigh, func(r *ComparisonRow) *float64 { return &r.BootCIHigh }),
	int32Column(ColBootResamples, func(r *ComparisonRow) *int32 { return &r.BootResamples }),
	int32Column(ColBootBeyondZero, func(r *ComparisonRow) *int32 { return &r.BootBeyondZero }),
	float64Column(ColP, func(r *ComparisonRow) *float64 { return &r.P }),
	stringColumn(ColPTest, func(r *ComparisonRow) *string { return &r.PTest }),
	optFloat64Column(ColPHolm, func(r *ComparisonRow) *Opt[float64] { return &r.PHolm }),
	stringColumn(ColHolmFamily, func(r *ComparisonRow) *string { return &r.HolmFamily }),
	int32Column(ColHolmM, func(r *ComparisonRow) *int32 { return &r.HolmM }),
	float64Column(ColMDE80, func(r *ComparisonRow) *float64 { return &r.MDE80 }),
	float64Column(ColMDEAlpha, func(r *ComparisonRow) *float64 { return &r.MDEAlpha }),
	optInt32Column(ColMcNemarB, func(r *ComparisonRow) *Opt[int32] { return &r.McNemarB }),
	optInt32Column(ColMcNemarC, func(r *ComparisonRow) *Opt[int32] { return &r.McNemarC }),
	optFloat64Column(ColMcNemarP, func(r *ComparisonRow) *Opt[float64] { return &r.McNemarP }),
	stringColumn(ColMcNemarTest, func(r *ComparisonRow) *string { return &r.McNemarTest }),
}

// ComparisonSchema is comparisons.arrow's schema. Treat it as read-only.
var ComparisonSchema = schemaOf(KindComparisons, comparisonColumns)

func checkComparisonRow(r *ComparisonRow) error {
	switch r.PTest {
	case SignFlipExact, SignFlipMC:
	default:
		return fmt.Errorf("p_test %q: want %s or %s", r.PTest, SignFlipExact, SignFlipMC)
	}
	if err := CheckAlternative(r.Alternative); err != nil {
		return fmt.Errorf("sampler %q filter %q: %w", r.Sampler, r.Filter, err)
	}
	if r.PHolm.Valid != (r.HolmFamily != "") || r.PHolm.Valid != (r.HolmM > 0) {
		return fmt.Errorf("sampler %q filter %q: p_holm, holm_family %q and holm_m %d disagree on whether the row is in a Holm family", r.Sampler, r.Filter, r.HolmFamily, r.HolmM)
	}
	if r.McNemarP.Valid != (r.McNemarTest != "") {
		return fmt.Errorf("sampler %q filter %q: mcnemar_p and mcnemar_test %q disagree", r.Sampler, r.Filter, r.McNemarTest)
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
