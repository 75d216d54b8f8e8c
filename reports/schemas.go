package reports

// File kinds, as recorded in each file's schema metadata (entropix.schema).
const (
	KindTraces      = "traces"
	KindResults     = "results"
	KindSummary     = "summary"
	KindComparisons = "comparisons"
)

// Column lists, in file order. Type choices (README, "Arrow files"):
//   - ids, indices and token counts are int32 (GSM8K has 7473 docs, vocabularies
//     are < 2^31, responses are < 2^31 tokens); seeds are int64 because users
//     pass arbitrary 64-bit seeds.
//   - every real number is float64: the samplers compute entropy, varentropy and
//     the attention metrics in float64 and compare them with thresholds, so a
//     float32 copy could not replay a strategy choice at a boundary; sampler
//     parameters stay exactly as configured (0.7, not 0.699999988). The cost is
//     about 40 bytes per trace row.
//   - strings are plain utf8, not dictionary-encoded: the IPC file format allows
//     neither dictionary deltas nor replacements, which a streaming writer with an
//     open set of values would need.
var (
	traceColumns = []column[TraceRow]{
		stringColumn(ColRunID, func(r *TraceRow) *string { return &r.RunID }),
		stringColumn(ColTask, func(r *TraceRow) *string { return &r.Task }),
		int32Column(ColProblemID, func(r *TraceRow) *int32 { return &r.ProblemID }),
		int32Column(ColRepeat, func(r *TraceRow) *int32 { return &r.Repeat }),
		int32Column(ColStep, func(r *TraceRow) *int32 { return &r.Step }),
		int32Column(ColTokenID, func(r *TraceRow) *int32 { return &r.TokenID }),
		stringColumn(ColTokenText, func(r *TraceRow) *string { return &r.TokenText }),
		stringColumn(ColStrategy, func(r *TraceRow) *string { return &r.Strategy }),
		float64Column(ColEntropy, func(r *TraceRow) *float64 { return &r.Entropy }),
		float64Column(ColVarentropy, func(r *TraceRow) *float64 { return &r.Varentropy }),
		optFloat64Column(ColAttnEntropy, func(r *TraceRow) *Opt[float64] { return &r.AttnEntropy }),
		optFloat64Column(ColAttnVarentropy, func(r *TraceRow) *Opt[float64] { return &r.AttnVarentropy }),
		optFloat64Column(ColAgreement, func(r *TraceRow) *Opt[float64] { return &r.Agreement }),
		optFloat64Column(ColInteractionStrength, func(r *TraceRow) *Opt[float64] { return &r.InteractionStrength }),
		float64Column(ColTemperature, func(r *TraceRow) *float64 { return &r.Temperature }),
		optInt32Column(ColTopK, func(r *TraceRow) *Opt[int32] { return &r.TopK }),
		optFloat64Column(ColTopP, func(r *TraceRow) *Opt[float64] { return &r.TopP }),
		optFloat64Column(ColMinP, func(r *TraceRow) *Opt[float64] { return &r.MinP }),
		float64Column(ColLogProb, func(r *TraceRow) *float64 { return &r.LogProb }),
		float64Column(ColTailMass, func(r *TraceRow) *float64 { return &r.TailMass }),
	}

	resultColumns = []column[ResultRow]{
		stringColumn(ColRunID, func(r *ResultRow) *string { return &r.RunID }),
		stringColumn(ColSampler, func(r *ResultRow) *string { return &r.Sampler }),
		int64Column(ColSeed, func(r *ResultRow) *int64 { return &r.Seed }),
		int32Column(ColProblemID, func(r *ResultRow) *int32 { return &r.ProblemID }),
		int32Column(ColRepeat, func(r *ResultRow) *int32 { return &r.Repeat }),
		stringColumn(ColPromptHash, func(r *ResultRow) *string { return &r.PromptHash }),
		stringColumn(ColTarget, func(r *ResultRow) *string { return &r.Target }),
		stringColumn(ColResponse, func(r *ResultRow) *string { return &r.Response }),
		stringColumn(ColExtractedStrict, func(r *ResultRow) *string { return &r.ExtractedStrict }),
		stringColumn(ColExtractedFlexible, func(r *ResultRow) *string { return &r.ExtractedFlexible }),
		boolColumn(ColCorrectStrict, func(r *ResultRow) *bool { return &r.CorrectStrict }),
		boolColumn(ColCorrectFlexible, func(r *ResultRow) *bool { return &r.CorrectFlexible }),
		boolColumn(ColCorrectNumeric, func(r *ResultRow) *bool { return &r.CorrectNumeric }),
		int32Column(ColPromptTokens, func(r *ResultRow) *int32 { return &r.PromptTokens }),
		int32Column(ColGenTokens, func(r *ResultRow) *int32 { return &r.GenTokens }),
		stringColumn(ColFinishReason, func(r *ResultRow) *FinishReason { return &r.FinishReason }),
		float64Column(ColLatencyMS, func(r *ResultRow) *float64 { return &r.LatencyMS }),
	}

	summaryColumns = []column[SummaryRow]{
		stringColumn(ColRunID, func(r *SummaryRow) *string { return &r.RunID }),
		stringColumn(ColSampler, func(r *SummaryRow) *string { return &r.Sampler }),
		int64Column(ColSeed, func(r *SummaryRow) *int64 { return &r.Seed }),
		stringColumn(ColFilter, func(r *SummaryRow) *Filter { return &r.Filter }),
		int32Column(ColN, func(r *SummaryRow) *int32 { return &r.N }),
		int32Column(ColRepeats, func(r *SummaryRow) *int32 { return &r.Repeats }),
		float64Column(ColAccuracy, func(r *SummaryRow) *float64 { return &r.Accuracy }),
		float64Column(ColSE, func(r *SummaryRow) *float64 { return &r.SE }),
		float64Column(ColCILow, func(r *SummaryRow) *float64 { return &r.CILow }),
		float64Column(ColCIHigh, func(r *SummaryRow) *float64 { return &r.CIHigh }),
		float64Column(ColTruncationRate, func(r *SummaryRow) *float64 { return &r.TruncationRate }),
		float64Column(ColMeanGenTokens, func(r *SummaryRow) *float64 { return &r.MeanGenTokens }),
	}
)

// The published schemas. Treat them as read-only.
var (
	TraceSchema   = schemaOf(KindTraces, traceColumns)
	ResultSchema  = schemaOf(KindResults, resultColumns)
	SummarySchema = schemaOf(KindSummary, summaryColumns)
)

// Row checks shared by writers and readers: values outside a column's
// vocabulary are rejected on both sides.
func checkResultRow(r *ResultRow) error { return r.FinishReason.check() }

func checkSummaryRow(r *SummaryRow) error { return r.Filter.check() }
