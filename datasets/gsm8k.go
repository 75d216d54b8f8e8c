package datasets

// The four GSM8K tasks of lm-evaluation-harness v0.4.x (lm_eval/tasks/gsm8k/),
// transcribed from their YAML; docs/GSM8K.md in ../shared lists the same facts.

// Extraction regexes exactly as lm-eval writes them. The unescaped final "." of
// cotStrict is deliberate: it is lm-eval's, and "The answer is 18" at the very
// end of a response extracts "1".
const (
	gsm8kStrict     = `#### (\-?[0-9\.\,]+)`
	cotStrict       = `The answer is (\-?[0-9\.\,]+).`
	llamaStrict     = `The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))`
	flexibleExtract = `(-?[$0-9.,]{2,})|(-?[0-9]+)`
)

// Filter names as lm-eval reports them.
const (
	StrictMatch     = "strict-match"
	FlexibleExtract = "flexible-extract"
)

func init() {
	register("gsm8k", gsm8kTask)
	register("gsm8k_cot", gsm8kCoTTask)
	register("gsm8k_cot_llama", gsm8kCoTLlamaTask)
	register("gsm8k_cot_zeroshot", gsm8kCoTZeroshotTask)
}

// cotTarget is lm-eval's doc_to_target for the CoT tasks:
// answer.split('####')[-1].strip() if answer is defined else target.
func cotTarget(p Problem) string {
	if p.Answer == "" && p.TargetValid {
		return p.Target // an exemplar read from {"question","target"}
	}
	if t, ok := FinalAnswer(p.Answer); ok {
		return t
	}
	return p.Answer
}

// exactMatchIgnore is the regexes_to_ignore list of every GSM8K task, in order.
func exactMatchIgnore() []string { return []string{",", `\$`, "(?s).*#### ", `\.$`} }

func filters(strict string, strictGroup int) []FilterSpec {
	return []FilterSpec{
		{Name: StrictMatch, Pattern: strict, GroupSelect: strictGroup, Fallback: InvalidAnswer},
		{Name: FlexibleExtract, Pattern: flexibleExtract, GroupSelect: -1, Fallback: InvalidAnswer},
	}
}

func gsm8kTask() Task {
	return Task{
		Name:             "gsm8k",
		DocToText:        func(p Problem) string { return "Question: " + p.Question + "\nAnswer:" },
		DocToTarget:      func(p Problem) string { return p.Answer }, // the whole worked solution
		TargetDelimiter:  " ",
		FewshotDelimiter: "\n\n",
		NumFewshot:       5,
		Sampler:          SamplerRandom,
		FewshotSeed:      1234,
		FewshotSplit:     "train",
		Until:            []string{"Question:", "</s>", "<|im_end|>"},
		MaxNewTokens:     DefaultMaxNewTokens,
		Filters:          filters(gsm8kStrict, 0),
		IgnoreRegexes:    exactMatchIgnore(),
		IgnoreCase:       true,
	}
}

func gsm8kCoTTask() Task {
	return Task{
		Name:             "gsm8k_cot",
		DocToText:        func(p Problem) string { return "Q: " + p.Question + "\nA:" },
		DocToTarget:      cotTarget,
		TargetDelimiter:  " ",
		FewshotDelimiter: "\n\n",
		NumFewshot:       8,
		Sampler:          SamplerFirstN,
		FewshotSeed:      1234,
		FewshotFile:      "gsm8k_cot_8shot.jsonl",
		Until:            []string{"Q:", "</s>", "<|im_end|>"},
		MaxNewTokens:     DefaultMaxNewTokens,
		Filters:          filters(cotStrict, 0),
		IgnoreRegexes:    exactMatchIgnore(),
		IgnoreCase:       true,
	}
}

func gsm8kCoTLlamaTask() Task {
	return Task{
		Name: "gsm8k_cot_llama",
		DocToText: func(p Problem) string {
			return "Given the following problem, reason and give a final answer to the problem.\nProblem: " +
				p.Question +
				"\nYour response should end with \"The final answer is [answer]\" where [answer] is the response to the problem.\n"
		},
		DocToTarget:      cotTarget,
		TargetDelimiter:  "",
		FewshotDelimiter: "\n\n",
		NumFewshot:       8,
		Sampler:          SamplerFirstN,
		FewshotSeed:      1234,
		FewshotFile:      "gsm8k_cot_llama_8shot.jsonl",
		Until: []string{"<|eot_id|>", "<|start_header_id|>user<|end_header_id|>",
			"Q:", "</s>", "<|im_end|>"},
		MaxNewTokens:  DefaultMaxNewTokens,
		Filters:       filters(llamaStrict, -1),
		IgnoreRegexes: exactMatchIgnore(),
		IgnoreCase:    true,
	}
}

func gsm8kCoTZeroshotTask() Task {
	return Task{
		Name:             "gsm8k_cot_zeroshot",
		DocToText:        func(p Problem) string { return "Q: " + p.Question + "\nA: Let's think step by step." },
		DocToTarget:      cotTarget,
		TargetDelimiter:  " ",
		FewshotDelimiter: "\n\n",
		NumFewshot:       0,
		Sampler:          SamplerRandom, // no fewshot_config: lm-eval's default sampler over train
		FewshotSeed:      1234,
		FewshotSplit:     "train",
		Until:            []string{"Q:", "</s>", "<|im_end|>"},
		MaxNewTokens:     DefaultMaxNewTokens,
		Filters:          filters(cotStrict, 0),
		IgnoreRegexes:    exactMatchIgnore(),
		IgnoreCase:       true,
	}
}
