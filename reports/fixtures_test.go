package reports

import (
	"math"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// sampleTraces covers every column shape: nulls and values in each nullable
// column, empty and non-ASCII text, a byte-level token that is half of a UTF-8
// character (stored as U+FFFD), non-finite floats, and every decision field.
func sampleTraces() []TraceRow {
	nan := math.NaN()
	tok := func(run string, p, rep, step int32, text string, d sampler.Decision, h, v float64, attn [4]float64, tail float64) TraceRow {
		return TraceRow{RunKey: "fp@2026-11-22T06:00:00Z", RunID: run, Task: "gsm8k_cot", Sampler: "entropix", Seed: 1<<62 + 1, ProblemID: p, Repeat: rep, Step: step, TokenRecord: TokenRecord{
			Text: text, Decision: d, Entropy: h, Varentropy: v,
			AttnEntropy: attn[0], AttnVarentropy: attn[1], Agreement: attn[2], InteractionStrength: attn[3], VocabTailMass: tail}}
	}
	const run = "gsm8k_cot/entropix-s1"
	return []TraceRow{
		tok(run, 0, 0, 0, " The", sampler.Decision{Token: 791, Strategy: "argmax", LogProb: -0.001, Survivors: 1},
			0.0123456789012345, 0.5, [4]float64{3.25, 0.125, 0.01, 4.5}, 1e-9),
		tok(run, 0, 0, 1, "", sampler.Decision{Token: 128009, Strategy: "branch", Temperature: 0.7, TopK: 27, TopP: 0.9, MinP: 0.03,
			LogProb: -2.302585092994046, SampleLogProb: -1.5, Survivors: 27, NSamples: 1, TailMass: 0.3, TailCut: true},
			2.5, 14.75, [4]float64{nan, nan, nan, nan}, 0.25),
		tok(run, 1318, 9, 255, "日本語 ✓ 🙂", sampler.Decision{Token: 50256, Strategy: "resample", Temperature: 1.5, TopP: 1, MinP: 0.1,
			LogProb: math.Inf(-1), Confidence: -0.75, NSamples: 5, Faithful: true},
			nan, math.Inf(1), [4]float64{nan, nan, nan, nan}, 0),
		tok(run, 7, 1, 2, "\xe6\x97", sampler.Decision{Token: 2, Strategy: "adaptive", Temperature: 2, LogProb: -30}, // half of 日
			17.0, 0, [4]float64{math.Copysign(0, -1), nan, nan, nan}, 1),
	}
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
		{RunID: "r1", Sampler: "greedy", Seed: 0, Filter: keyStrict, N: 1319, Repeats: 1,
			Accuracy: 0.389, SE: 0.0134, CILow: 0.363, CIHigh: 0.416, TruncationRate: 0.02, MeanGenTokens: 131.5},
		{RunID: "r1", Sampler: "greedy", Seed: 0, Filter: keyNumeric, N: 1, Repeats: 10,
			Accuracy: 1, SE: math.NaN(), CILow: 0.2065, CIHigh: 1, TruncationRate: 0, MeanGenTokens: 0},
	}
}

func sampleComparisons() []ComparisonRow {
	return []ComparisonRow{
		{Sampler: "entropix", Baseline: "greedy", Filter: "strict-match", Primary: true, Alternative: TwoSided, NProblems: 1319, NDiffering: 212,
			SamplesPerProblem: 3, BaselineSamplesPerProblem: 3, BaselineDeterministic: true, SamplerAcc: 0.41, BaselineAcc: 0.389,
			Delta: 0.021, DeltaSE: 0.0097, CILow: 0.002, CIHigh: 0.040, NormalCILow: 0.0020, NormalCIHigh: 0.0400,
			BootCILow: 0.001, BootCIHigh: 0.041, BootResamples: 10000, BootBeyondZero: 153, P: 0.0301, PTest: SignFlipExact,
			PHolm: Some(0.0602), HolmFamily: "task:gsm8k", HolmM: 2, MDE80: 0.0272, MDEAlpha: 0.025},
		{Sampler: "min_p", Baseline: "greedy", Filter: "flexible-extract", Alternative: Less, NProblems: 5, NDiffering: 7,
			SamplesPerProblem: 1, BaselineSamplesPerProblem: 1, Delta: -0.2, DeltaSE: math.NaN(),
			CILow: -1, CIHigh: 0.1, NormalCILow: math.NaN(), NormalCIHigh: math.NaN(), BootResamples: 1, P: 0.125, PTest: SignFlipMC,
			MDE80: math.NaN(), MDEAlpha: 0.05,
			McNemarB: Some[int32](1), McNemarC: Some[int32](6), McNemarP: Some(0.125), McNemarTest: McNemarExact},
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
