package reports

import (
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
			ExtractedStrict: "18", ExtractedFlexible: "18",
			PromptHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", LatencyMS: 1234.5,
			CorrectStrict: true, CorrectFlexible: true, CorrectNumeric: true,
			PromptTokens: 812, GenTokens: 41, FinishReason: FinishStop,
		},
		{
			RunID: "r1", Sampler: "min_p=0.1,T=1.5", Seed: -9223372036854775808, ProblemID: 1, Repeat: 0,
			PromptHash: "00", Target: "29", Response: "… 29.00 and then\x80",
			ExtractedStrict: "[invalid]", ExtractedFlexible: "29.00",
			CorrectStrict: false, CorrectFlexible: false, CorrectNumeric: true,
			PromptTokens: 790, GenTokens: 256, FinishReason: FinishLength, LatencyMS: 0.25,
		},
		{
			RunID: "r1", Sampler: "min_p=0.1,T=1.5", Seed: 9007199254740993, ProblemID: 2, Repeat: 3,
			Target: "-2,125", Response: "",
			ExtractedStrict: "[invalid]", ExtractedFlexible: "[invalid]",
			FinishReason: FinishEOS,
		},
	}
}

func sampleSummary() []SummaryRow {
	return []SummaryRow{
		{RunID: "r1", Sampler: "greedy", Seed: 0, Filter: FilterStrict, N: 1319, Repeats: 1,
			Accuracy: 0.389, SE: 0.0134, CILow: 0.363, CIHigh: 0.416, TruncationRate: 0.02, MeanGenTokens: 131.5},
		{RunID: "r1", Sampler: "greedy", Seed: 0, Filter: FilterNumeric, N: 1, Repeats: 10,
			Accuracy: 1, SE: math.NaN(), CILow: 0.2065, CIHigh: 1, TruncationRate: 0, MeanGenTokens: 0},
	}
}

func sampleComparisons() []ComparisonRow {
	return []ComparisonRow{
		{Sampler: "entropix", Baseline: "greedy", Filter: "strict-match", Primary: true, NProblems: 1319,
			SamplesPerProblem: 3, BaselineSamplesPerProblem: 1, SamplerAcc: 0.41, BaselineAcc: 0.389,
			Delta: 0.021, DeltaSE: 0.0097, CILow: 0.002, CIHigh: 0.040, BootCILow: 0.001, BootCIHigh: 0.041,
			BootResamples: 10000, P: 0.0301, PTest: SignFlipExact, PHolm: Some(0.0602), MDE80: 0.0272},
		{Sampler: "min_p", Baseline: "greedy", Filter: "flexible-extract", NProblems: 5,
			SamplesPerProblem: 1, BaselineSamplesPerProblem: 1, Delta: -0.2, DeltaSE: math.NaN(),
			CILow: math.NaN(), CIHigh: math.NaN(), BootResamples: 1, P: 0.125, PTest: SignFlipMC, MDE80: math.NaN(),
			McNemarB: Some[int32](1), McNemarC: Some[int32](6), McNemarP: Some(0.125)},
	}
}
