package reports

import (
	"github.com/apache/arrow/go/v17/arrow"
	"math"
)

// sampleTraces covers every column shape: nulls and values in each nullable
// column, empty and non-ASCII text, a byte-level token that is half of a UTF-8
// character (stored as U+FFFD), and non-finite floats.
func sampleTraces() []TraceRow {
	rows := []TraceRow{
		{
			RunID: "gsm8k_cot/entropix-s1", Task: "gsm8k_cot", ProblemID: 0, Repeat: 0, Step: 0,
			TokenID: 791, TokenText: " The", Strategy: "argmax",
			Entropy: 0.0123456789012345, Varentropy: 0.5,
			AttnEntropy: Some(3.25), AttnVarentropy: Some(0.125), Agreement: Some(0.01), InteractionStrength: Some(4.5),
			Temperature: 0, LogProb: -0.001, TailMass: 1e-9,
		},
		{
			RunID: "gsm8k_cot/entropix-s1", Task: "gsm8k_cot", ProblemID: 0, Repeat: 0, Step: 1,
			TokenID: 128009, TokenText: "", Strategy: "branch",
			Entropy: 2.5, Varentropy: 14.75,
			Temperature: 0.7, TopK: Some[int32](27), TopP: Some(0.9), MinP: Some(0.03),
			LogProb: -2.302585092994046, TailMass: 0.25,
		},
		{
			RunID: "gsm8k_cot/entropix-s1", Task: "gsm8k_cot", ProblemID: 1318, Repeat: 9, Step: 255,
			TokenID: 50256, TokenText: "日本語 ✓ 🙂", Strategy: "resample",
			Entropy: math.NaN(), Varentropy: math.Inf(1),
			Temperature: 1.5, MinP: Some(0.1),
			LogProb: math.Inf(-1), TailMass: 0,
		},
		{
			RunID: "gsm8k_cot/entropix-s1", Task: "gsm8k_cot", ProblemID: 7, Repeat: 1, Step: 2,
			TokenID: 2, TokenText: "\xe6\x97", Strategy: "adaptive", // half of 日
			Entropy: 17.0, Varentropy: 0,
			AttnEntropy: Some(math.Copysign(0, -1)), TopK: Some[int32](0),
			Temperature: 2, LogProb: -30, TailMass: 1,
		},
	}
	return rows
}

func sampleResults() []ResultRow {
	return []ResultRow{
		{
			RunID: "r1", Sampler: "min_p=0.1,T=1.5", Seed: 1, ProblemID: 0, Repeat: 0,
			Target: "18", Response: "She sells 16 - 3 - 4 = 9 eggs.\nThe answer is 18.",
			Task: "gsm8k_cot", Answers: gsm8kAnswers("18", "18"), Scores: gsm8kScores(true, true, true),
			PromptHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", LatencyMS: 1234.5,
			PromptTokens: 812, GenTokens: 41, FinishReason: FinishStop,
		},
		{
			RunID: "r1", Sampler: "min_p=0.1,T=1.5", Seed: -9223372036854775808, ProblemID: 1, Repeat: 0,
			PromptHash: "00", Target: "29", Response: "… 29.00 and then\x80",
			Task: "gsm8k_cot", Answers: gsm8kAnswers("[invalid]", "29.00"), Scores: gsm8kScores(false, false, true),
			PromptTokens: 790, GenTokens: 256, FinishReason: FinishLength, LatencyMS: 0.25,
		},
		{
			RunID: "r1", Sampler: "min_p=0.1,T=1.5", Seed: 9007199254740993, ProblemID: 2, Repeat: 3,
			Target: "-2,125", Response: "",
			Task: "gsm8k_cot", Answers: gsm8kAnswers("[invalid]", "[invalid]")[:1], // no flexible answer, no scores: null cells
			FinishReason: FinishEOS,
		},
	}
}

func sampleSummary() []SummaryRow {
	return []SummaryRow{
		{RunID: "r1", Sampler: "greedy", Seed: 0, Score: keyStrict, N: 1319, Repeats: 1,
			Accuracy: 0.389, SE: 0.0134, CILow: 0.363, CIHigh: 0.416, TruncationRate: 0.02, MeanGenTokens: 131.5},
		{RunID: "r1", Sampler: "greedy", Seed: 0, Score: keyNumeric, N: 1, Repeats: 10,
			Accuracy: 1, SE: math.NaN(), CILow: 0.2065, CIHigh: 1, TruncationRate: 0, MeanGenTokens: 0},
	}
}

func sampleComparisons() []ComparisonRow {
	return []ComparisonRow{
		{SamplerA: "entropix", SamplerB: "greedy", Score: keyStrict, N: 1319,
			AccuracyA: 0.41, AccuracyB: 0.389, Difference: 0.021, CILow: -0.004, CIHigh: 0.046,
			Resamples: 10000, McNemarB: 90, McNemarC: 62, Method: McNemarChi2CC, PValue: 0.0285, PHolm: 0.057},
		{SamplerA: "min_p", SamplerB: "greedy", Score: keyFlexible, N: 5,
			Difference: -0.2, Resamples: 1, McNemarB: 1, McNemarC: 6, Method: McNemarExact, PValue: 0.125, PHolm: 0.125},
	}
}

// The GSM8K tasks' score keys and results layout, as the built-in tasks make them.
const (
	keyStrict   ScoreKey = "exact_match,strict-match"
	keyNumeric  ScoreKey = "numeric_match,strict-match"
	keyFlexible ScoreKey = "exact_match,flexible-extract"
)

var gsm8kLayout = ResultLayout{Filters: []string{"strict-match", "flexible-extract"}, Scores: []ScoreKey{keyStrict, keyNumeric, keyFlexible}}

func gsm8kAnswers(strict, flexible string) []Answer {
	return []Answer{{Filter: "strict-match", Answer: strict}, {Filter: "flexible-extract", Answer: flexible}}
}

func gsm8kScores(strict, flexible, numeric bool) []Score {
	v := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	return []Score{{Metric: "exact_match", Filter: "strict-match", Value: v(strict)},
		{Metric: "numeric_match", Filter: "strict-match", Value: v(numeric)},
		{Metric: "exact_match", Filter: "flexible-extract", Value: v(flexible)}}
}

// testResultColumns and testResultSchema are results.arrow's with the GSM8K layout.
func testResultColumns() []column[ResultRow] {
	cols, err := resultColumns(gsm8kLayout)
	if err != nil {
		panic(err)
	}
	return cols
}

func testResultSchema() *arrow.Schema { return schemaOf(KindResults, testResultColumns()) }
