package reports

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// File kinds, as recorded in each file's schema metadata (entropix.schema).
const (
	KindTraces      = "traces"
	KindResults     = "results"
	KindSummary     = "summary"
	KindComparisons = "comparisons"
)

// Column lists, in file order. Type choices (docs/files.md):
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
		stringColumn(ColRunKey, func(r *TraceRow) *string { return &r.RunKey }),
		stringColumn(ColRunID, func(r *TraceRow) *string { return &r.RunID }),
		stringColumn(ColTask, func(r *TraceRow) *string { return &r.Task }),
		stringColumn(ColSampler, func(r *TraceRow) *string { return &r.Sampler }),
		stringColumn(ColAttnMode, func(r *TraceRow) *string { return &r.AttnMode }),
		int32Column(ColPadLen, func(r *TraceRow) *int32 { return &r.PadLen }),
		int64Column(ColSeed, func(r *TraceRow) *int64 { return &r.Seed }),
		int32Column(ColProblemID, func(r *TraceRow) *int32 { return &r.ProblemID }),
		int32Column(ColRepeat, func(r *TraceRow) *int32 { return &r.Repeat }),
		int32Column(ColStep, func(r *TraceRow) *int32 { return &r.Step }),
		int32Column(ColTokenID, func(r *TraceRow) *int32 { return &r.Token }),
		stringColumn(ColTokenText, func(r *TraceRow) *string { return &r.Text }),
		stringColumn(ColStrategy, func(r *TraceRow) *sampler.Strategy { return &r.Strategy }),
		float64Column(ColEntropy, func(r *TraceRow) *float64 { return &r.Entropy }),
		float64Column(ColVarentropy, func(r *TraceRow) *float64 { return &r.Varentropy }),
		nanNullColumn(ColAttnEntropy, func(r *TraceRow) *float64 { return &r.AttnEntropy }),
		nanNullColumn(ColAttnVarentropy, func(r *TraceRow) *float64 { return &r.AttnVarentropy }),
		nanNullColumn(ColAgreement, func(r *TraceRow) *float64 { return &r.Agreement }),
		nanNullColumn(ColInteractionStrength, func(r *TraceRow) *float64 { return &r.InteractionStrength }),
		float64Column(ColTemperature, func(r *TraceRow) *float64 { return &r.Temperature }),
		// The sampler reports "off" as TopK 0, TopP 1 (0 for deterministic
		// strategies) and MinP 0; the columns are null then, and read back as
		// TopK 0, TopP 1, MinP 0.
		offNullIntColumn(ColTopK, func(r *TraceRow) *int { return &r.TopK }, func(v int) bool { return v > 0 }, 0),
		offNullColumn(ColTopP, func(r *TraceRow) *float64 { return &r.TopP }, func(v float64) bool { return v > 0 && v < 1 }, 1),
		offNullColumn(ColMinP, func(r *TraceRow) *float64 { return &r.MinP }, func(v float64) bool { return v > 0 }, 0),
		float64Column(ColLogProb, func(r *TraceRow) *float64 { return &r.LogProb }),
		float64Column(ColTailMass, func(r *TraceRow) *float64 { return &r.VocabTailMass }),
		float64Column(ColSampleLogProb, func(r *TraceRow) *float64 { return &r.SampleLogProb }),
		intColumn(ColSurvivors, func(r *TraceRow) *int { return &r.Survivors }),
		intColumn(ColNSamples, func(r *TraceRow) *int { return &r.NSamples }),
		float64Column(ColConfidence, func(r *TraceRow) *float64 { return &r.Confidence }),
		float64Column(ColDrawTailMass, func(r *TraceRow) *float64 { return &r.Decision.TailMass }),
		boolColumn(ColTailCut, func(r *TraceRow) *bool { return &r.TailCut }),
		boolColumn(ColFaithful, func(r *TraceRow) *bool { return &r.Faithful }),
	}

	// resultHead and resultTail frame the per-task columns of results.arrow:
	// one "answer,<filter>" utf8 column per filter pipeline, then one
	// "<metric>,<filter>" float64 column per score (see ResultLayout).
	resultHead = []column[ResultRow]{
		stringColumn(ColRunKey, func(r *ResultRow) *string { return &r.RunKey }),
		stringColumn(ColRunID, func(r *ResultRow) *string { return &r.RunID }),
		stringColumn(ColTask, func(r *ResultRow) *string { return &r.Task }),
		stringColumn(ColSampler, func(r *ResultRow) *string { return &r.Sampler }),
		stringColumn(ColSamplerSpec, func(r *ResultRow) *string { return &r.SamplerSpec }),
		stringColumn(ColModel, func(r *ResultRow) *string { return &r.Model }),
		stringColumn(ColDate, func(r *ResultRow) *string { return &r.Date }),
		int64Column(ColSeed, func(r *ResultRow) *int64 { return &r.Seed }),
		int32Column(ColProblemID, func(r *ResultRow) *int32 { return &r.ProblemID }),
		int32Column(ColRepeat, func(r *ResultRow) *int32 { return &r.Repeat }),
		stringColumn(ColPromptHash, func(r *ResultRow) *string { return &r.PromptHash }),
		stringColumn(ColTarget, func(r *ResultRow) *string { return &r.Target }),
		stringColumn(ColResponse, func(r *ResultRow) *string { return &r.Response }),
	}
	resultTail = []column[ResultRow]{
		int32Column(ColPromptTokens, func(r *ResultRow) *int32 { return &r.PromptTokens }),
		int32Column(ColGenTokens, func(r *ResultRow) *int32 { return &r.GenTokens }),
		stringColumn(ColFinishReason, func(r *ResultRow) *FinishReason { return &r.FinishReason }),
		float64Column(ColLatencyMS, func(r *ResultRow) *float64 { return &r.LatencyMS }),
	}

	summaryColumns = []column[SummaryRow]{
		stringColumn(ColRunKey, func(r *SummaryRow) *string { return &r.RunKey }),
		stringColumn(ColRunID, func(r *SummaryRow) *string { return &r.RunID }),
		stringColumn(ColSampler, func(r *SummaryRow) *string { return &r.Sampler }),
		stringColumn(ColSamplerSpec, func(r *SummaryRow) *string { return &r.SamplerSpec }),
		stringColumn(ColModel, func(r *SummaryRow) *string { return &r.Model }),
		stringColumn(ColDate, func(r *SummaryRow) *string { return &r.Date }),
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
	SummarySchema = schemaOf(KindSummary, summaryColumns)
)

// Row checks shared by writers and readers: values outside a column's
// vocabulary are rejected on both sides.
func checkResultRow(r *ResultRow) error { return r.FinishReason.check() }

func checkSummaryRow(r *SummaryRow) error { return r.Filter.check() }

// AnswerColumnPrefix starts the name of each filter's answer column in
// results.arrow ("answer,strict-match"); score columns are named by their key
// ("exact_match,strict-match"), as lm-eval names results.
const AnswerColumnPrefix = "answer,"

// ResultLayout is the task-dependent part of results.arrow: which filters
// have answer columns and which score keys have score columns, in order.
type ResultLayout struct {
	Filters []string
	Scores  []ScoreKey
}

// LayoutOf is the layout that holds every answer and score of rows.
func LayoutOf(rows []ResultRow) ResultLayout {
	return ResultLayout{Filters: AnswerFilters(rows), Scores: ScoreKeys(rows)}
}

// ResultSchema is the schema of a results.arrow file with layout l.
func ResultSchema(l ResultLayout) (*arrow.Schema, error) {
	cols, err := resultColumns(l)
	if err != nil {
		return nil, err
	}
	return schemaOf(KindResults, cols), nil
}

// resultColumns builds the column list of layout l. Answer and score columns
// are nullable: a row of another task, or a response a filter did not score,
// leaves them null.
func resultColumns(l ResultLayout) ([]column[ResultRow], error) {
	cols := append([]column[ResultRow](nil), resultHead...)
	seen := map[string]bool{}
	for _, c := range resultHead {
		seen[c.field.Name] = true
	}
	for _, c := range resultTail {
		seen[c.field.Name] = true
	}
	add := func(c column[ResultRow]) error {
		if seen[c.field.Name] {
			return fmt.Errorf("results column %q appears twice", c.field.Name)
		}
		seen[c.field.Name] = true
		cols = append(cols, c)
		return nil
	}
	for _, f := range l.Filters {
		if err := add(answerColumn(f)); err != nil {
			return nil, err
		}
	}
	for _, k := range l.Scores {
		if err := k.check(); err != nil {
			return nil, err
		}
		if k.Metric()+"," == AnswerColumnPrefix {
			return nil, fmt.Errorf("score %q: metric name %q is reserved", k, k.Metric())
		}
		if err := add(scoreColumn(k)); err != nil {
			return nil, err
		}
	}
	return append(cols, resultTail...), nil
}

// layoutOfSchema reads the layout back from a results file's columns.
func layoutOfSchema(s *arrow.Schema) ResultLayout {
	var l ResultLayout
	for _, f := range s.Fields() {
		switch {
		case strings.HasPrefix(f.Name, AnswerColumnPrefix):
			l.Filters = append(l.Filters, strings.TrimPrefix(f.Name, AnswerColumnPrefix))
		case strings.Contains(f.Name, ","):
			l.Scores = append(l.Scores, ScoreKey(f.Name))
		}
	}
	return l
}

func answerColumn(filter string) column[ResultRow] {
	find := func(r *ResultRow) (string, bool) { return r.Answer(filter) }
	return column[ResultRow]{
		field: arrow.Field{Name: AnswerColumnPrefix + filter, Type: arrow.BinaryTypes.String, Nullable: true},
		value: func(r *ResultRow) any {
			if v, ok := find(r); ok {
				return validUTF8(v)
			}
			return nil
		},
		appender: func(b array.Builder) func(*ResultRow) {
			sb := b.(*array.StringBuilder)
			return func(r *ResultRow) {
				if v, ok := find(r); ok {
					sb.Append(validUTF8(v))
				} else {
					sb.AppendNull()
				}
			}
		},
		scanner: func(a arrow.Array) (func(int, *ResultRow), error) {
			sa := a.(*array.String)
			if err := checkOffsets(sa); err != nil {
				return nil, err
			}
			return func(i int, r *ResultRow) {
				if !sa.IsNull(i) {
					r.Answers = append(r.Answers, Answer{Filter: filter, Answer: strings.Clone(sa.Value(i))})
				}
			}, nil
		},
	}
}

func scoreColumn(k ScoreKey) column[ResultRow] {
	metric, filter := k.Metric(), k.Filter()
	return column[ResultRow]{
		field: arrow.Field{Name: string(k), Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		value: func(r *ResultRow) any {
			if v, ok := r.Score(k); ok {
				return v
			}
			return nil
		},
		appender: func(b array.Builder) func(*ResultRow) {
			fb := b.(*array.Float64Builder)
			return func(r *ResultRow) {
				if v, ok := r.Score(k); ok {
					fb.Append(v)
				} else {
					fb.AppendNull()
				}
			}
		},
		scanner: func(a arrow.Array) (func(int, *ResultRow), error) {
			fa := a.(*array.Float64)
			return func(i int, r *ResultRow) {
				if !fa.IsNull(i) {
					r.Scores = append(r.Scores, Score{Metric: metric, Filter: filter, Value: fa.Value(i)})
				}
			}, nil
		},
	}
}
