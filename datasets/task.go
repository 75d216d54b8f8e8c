package datasets

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Sampler names how few-shot examples are chosen, as in lm-eval's fewshot_config.
type Sampler string

const (
	// SamplerRandom is lm-eval's "default" ContextSampler:
	// random.Random(seed).sample(fewshot_docs, n), one call per doc in doc order.
	SamplerRandom Sampler = "default"
	// SamplerFirstN takes the first n exemplars in file order.
	SamplerFirstN Sampler = "first_n"
)

// FilterSpec is one of a task's answer extractors (lm-eval's filter_list entry
// "regex" + "take_first"): the regex, which match to keep (0 = first, -1 =
// last, as Python indexes findall's list) and the value when nothing matches.
// It is plain data; package eval compiles and applies it.
type FilterSpec struct {
	Name        string
	Pattern     string
	GroupSelect int
	Fallback    string
}

// InvalidAnswer is lm-eval's fallback for a response no regex matches.
const InvalidAnswer = "[invalid]"

// DefaultMaxNewTokens is lm-eval's max_gen_toks default, used by all GSM8K tasks.
const DefaultMaxNewTokens = 256

// Task is one evaluation task: how a doc becomes prompt text and target, where
// the few-shot examples come from and how they are joined, where generation
// stops, and how answers are extracted. Field names follow lm-eval's task YAML.
type Task struct {
	Name string
	// DocToText renders a doc (test doc or exemplar) as prompt text.
	DocToText func(Problem) string
	// DocToTarget renders an exemplar's target (what follows the text in a shot).
	DocToTarget func(Problem) string
	// TargetDelimiter goes between a shot's text and its target; FewshotDelimiter
	// after each shot.
	TargetDelimiter  string
	FewshotDelimiter string
	NumFewshot       int
	Sampler          Sampler
	// FewshotSeed seeds SamplerRandom (lm-eval's fewshot_random_seed, 1234).
	FewshotSeed int64
	// FewshotSplit names the split random shots come from ("train"); FewshotFile
	// the exemplar file (in a few-shot directory) first_n shots come from.
	FewshotSplit string
	FewshotFile  string
	// Until are the stop strings (the tokenizer's EOS is added at run time).
	Until        []string
	MaxNewTokens int
	// Filters are the answer extractors: strict-match first, flexible-extract second.
	Filters []FilterSpec
	// IgnoreRegexes and IgnoreCase configure exact_match (lm-eval's
	// regexes_to_ignore, Python syntax, applied in order, then lowercasing).
	IgnoreRegexes []string
	IgnoreCase    bool
}

var registry = map[string]func() Task{}

func register(name string, f func() Task) { registry[name] = f }

// LookupTask returns a fresh copy of a registered task.
func LookupTask(name string) (Task, error) {
	f, ok := registry[name]
	if !ok {
		return Task{}, fmt.Errorf("unknown task %q (known: %s)", name, strings.Join(TaskNames(), ", "))
	}
	return f(), nil
}

// TaskNames lists the registered tasks, sorted.
func TaskNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Filter returns the task's extractor with the given name.
func (t Task) Filter(name string) (FilterSpec, bool) {
	i := slices.IndexFunc(t.Filters, func(f FilterSpec) bool { return f.Name == name })
	if i < 0 {
		return FilterSpec{}, false
	}
	return t.Filters[i], true
}
