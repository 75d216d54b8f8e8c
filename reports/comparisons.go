package reports

import "fmt"

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

// WriteComparisons writes rows as a complete comparisons.arrow file.
func WriteComparisons(path string, rows []ComparisonRow) error {
	return writeAll(path, ComparisonSchema, comparisonColumns, checkComparisonRow, rows)
}

// ReadComparisons reads every row of a comparisons.arrow file.
func ReadComparisons(path string) ([]ComparisonRow, error) {
	return readAll(path, KindComparisons, comparisonColumns, checkComparisonRow)
}
