package datasets

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// Sampler names how few-shot examples are chosen, as in lm-eval's fewshot_config.
type Sampler string

const (
	// SamplerRandom is lm-eval's "default" ContextSampler:
	// random.Random(seed).sample(fewshot_docs, n), one call per doc in doc order.
	SamplerRandom Sampler = "default"
	// SamplerFirstN takes the first n exemplars in order.
	SamplerFirstN Sampler = "first_n"
)

// InvalidAnswer is lm-eval's fallback for a response no regex matches.
const InvalidAnswer = hooks.InvalidAnswer

// DefaultMaxNewTokens is lm-eval's max_gen_toks default (HFLM's), used when a
// task's generation_kwargs do not set max_gen_toks.
const DefaultMaxNewTokens = 256

// DefaultFewshotSeed is lm-eval's fewshot_random_seed (simple_evaluate's default).
const DefaultFewshotSeed = 1234

// Task is one lm-eval generate_until task, built from its YAML: how a doc
// becomes prompt text and target, where the few-shot examples come from, where
// generation stops, and which filter pipelines and metrics score a response.
// Field names follow lm-eval's task YAML.
type Task struct {
	Name  string
	Alias string
	// File is the YAML the task was read from and Source where that file came
	// from ("builtin", an --include-path directory, or a --task file).
	File, Source string
	Tags         []string
	// Version is metadata.version, as lm-eval reports it.
	Version string

	DatasetPath, DatasetName string
	// DataFiles are dataset_kwargs.data_files per split (local files).
	DataFiles                                               map[string][]string
	TrainingSplit, ValidationSplit, TestSplit, FewshotSplit string

	// OutputType is output_type: generate_until, or one of the scored types
	// (multiple_choice, loglikelihood, loglikelihood_rolling).
	OutputType string

	Description, DocToText, DocToTarget, DocToChoice, GenPrefix *Template
	// ChoiceList is doc_to_choice written as a YAML list (MMLU's [A, B, C, D]).
	ChoiceList                        []string
	TargetDelimiter, FewshotDelimiter string
	NumFewshot                        int
	Fewshot                           FewshotConfig
	// FewshotSeed seeds SamplerRandom (lm-eval's fewshot_random_seed).
	FewshotSeed int64

	// Until are the stop strings (the tokenizer's EOS is added at run time).
	Until        []string
	MaxNewTokens int
	// Generation is generation_kwargs as written; do_sample and temperature are
	// recorded, the sweep's samplers decide decoding.
	Generation map[string]any
	Filters    []FilterPipeline
	Metrics    []MetricSpec
	// Repeats is lm-eval's repeats: responses per doc fed together to the
	// filters (self-consistency).
	Repeats int
	// PythonHooks are the task's `!function` hooks, for the Python bridge
	// (only with Index.PythonHooks; otherwise such a task is refused).
	PythonHooks []PythonHook
	pythonBound bool
	// ShouldDecontaminate is recorded only: lm-eval's evaluator never reads
	// it (decontamination is a separate tool).
	ShouldDecontaminate bool
	// ProcessDocs is the ported process_docs (nil: docs as loaded);
	// ProcessResults names the ported process_results that scores a
	// filtered response in place of the metric functions (nil: metrics).
	ProcessDocs    *DocsHook
	ProcessResults *hooks.PortRef
	// Ports are every ported Python hook the task uses.
	Ports []hooks.PortRef
}

// FewshotConfig is lm-eval's fewshot_config after inheritance from the task.
type FewshotConfig struct {
	Sampler Sampler
	// Split is the split shots come from; Samples are inline shots, used when
	// no split is set.
	Split   string
	Samples []Doc
	// SampleColumns is the key order of samples a ported function returns.
	SampleColumns                     []string
	DocToText, DocToTarget, GenPrefix *Template
	TargetDelimiter, FewshotDelimiter string
}

// FilterPipeline is one filter_list entry: a named chain of filter functions
// applied to a doc's responses in order (lm-eval's FilterEnsemble). It is data
// here; package eval compiles and runs it.
type FilterPipeline struct {
	Name  string
	Steps []FilterStep
}

// FilterStep is one function of a pipeline with its keyword arguments.
type FilterStep struct {
	Function string
	Params   map[string]any
	// Port names the Go port of a `!function` filter class (nil for a
	// registered filter function); Python names a filter run in the user's
	// Python instead (--python-hooks: a class, lm-eval's custom filter_fn, or
	// a filter lm-eval registers by name).
	Port   *hooks.PortRef `json:",omitempty"`
	Python *PythonHook    `json:",omitempty"`
}

// Compile builds the step's filter function from the registry (package
// hooks): a registered filter, or the port of a filter class.
func (s FilterStep) Compile() (hooks.FilterFunc, error) {
	if s.Port == nil {
		return hooks.NewFilter(s.Function, s.Params)
	}
	p, err := hooks.LookupPort(*s.Port)
	if err != nil {
		return nil, err
	}
	if p.Filter == nil {
		return nil, fmt.Errorf("%s is not a filter class", s.Port)
	}
	for k := range s.Params {
		if !slices.Contains(p.Filter.Params, k) {
			return nil, fmt.Errorf("%s: argument %s is not supported", s.Function, k)
		}
	}
	return p.Filter.New(s.Params)
}

// MetricSpec is one metric_list entry.
type MetricSpec struct {
	// Metric is the name, or "!function module.name" for a Python metric
	// function (Aggregation likewise).
	Metric            string
	Aggregation       string
	HigherIsBetter    bool
	IgnoreCase        bool
	IgnorePunctuation bool
	IgnoreNumbers     bool
	RegexesToIgnore   []string
	// Args are a Python metric's other keyword arguments (--python-hooks);
	// Python is a `!function` metric run in the user's Python.
	Args   map[string]any `json:",omitempty"`
	Python *PythonHook    `json:",omitempty"`
	// PythonAggregation is a `!function` aggregation run in the user's
	// Python over every doc's value (IFEval's agg_inst_level_acc): such a
	// metric exists per doc only as Python returned it (a list, say) and
	// aggregated, with no standard error (lm-eval's "N/A").
	PythonAggregation *PythonHook `json:",omitempty"`
}

// Corpus returns the corpus metric (bleu, chrf, ter) that aggregates m, if
// one does: its per-doc value is [reference, response] and its score is
// computed over every doc at once.
func (m MetricSpec) Corpus() (hooks.CorpusMetric, bool) {
	if m.PythonAggregation != nil {
		return hooks.CorpusMetric{}, false
	}
	return hooks.LookupCorpusMetric(m.Aggregation)
}

// PerDocPair says whether m's per-doc value is lm-eval's passthrough
// [gold, result]: a corpus metric, or a passthrough metric (acc, f1, ...)
// that a Python aggregation folds. Without a process_results only.
func (m MetricSpec) PerDocPair() bool {
	if _, ok := m.Corpus(); ok {
		return true
	}
	return m.Python == nil && m.PythonAggregation != nil && hooks.IsPassthroughMetric(m.Metric)
}

// EvalSplit is the split lm-eval evaluates: test_split, else validation_split.
func (t *Task) EvalSplit() string {
	if t.TestSplit != "" {
		return t.TestSplit
	}
	return t.ValidationSplit
}

// ShotSplit is the split random or first_n shots come from when the task has
// no inline samples: fewshot_config.split, else training, validation, test.
func (t *Task) ShotSplit() string {
	if t.Fewshot.Split != "" {
		return t.Fewshot.Split
	}
	if len(t.Fewshot.Samples) > 0 {
		return ""
	}
	for _, s := range []string{t.TrainingSplit, t.ValidationSplit, t.TestSplit} {
		if s != "" {
			return s
		}
	}
	return ""
}

// Text renders doc_to_text for an evaluated doc.
func (t *Task) Text(d Doc) (string, error) { return t.DocToText.RenderString(d) }

// Target renders doc_to_target as lm-eval's generate_until scores it: with
// doc_to_choice set, the target is an index into the choices.
func (t *Task) Target(d Doc) (string, error) {
	if !t.HasChoices() {
		return t.DocToTarget.RenderString(d)
	}
	v, err := t.DocToTarget.Render(d)
	if err != nil {
		return "", err
	}
	i, ok := asIndex(v)
	if !ok {
		return "", fmt.Errorf("doc_to_target: with doc_to_choice the target must be an index, got %q", hooks.PyStr(v))
	}
	choices, err := t.Choices(d)
	if err != nil {
		return "", err
	}
	if i < 0 || i >= len(choices) {
		return "", fmt.Errorf("doc_to_target: index %d outside the %d choices", i, len(choices))
	}
	return choices[i], nil
}

// TargetList is doc_to_target when it gives a list (lm-eval's multiple
// targets: a template that is one variable holding a list, which lm-eval
// renders and literal_evals back into that list), as str() of each item;
// ok is false for a single target.
func (t *Task) TargetList(d Doc) (list []string, ok bool, err error) {
	if t.HasChoices() {
		return nil, false, nil
	}
	v, isList, err := t.DocToTarget.listValue(d)
	if err != nil || !isList {
		return nil, false, err
	}
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = hooks.PyStr(e)
	}
	return out, true, nil
}

// Choices renders doc_to_choice (a list of strings): a YAML list as written,
// a column's list, or the list a {{ expression }} evaluates to.
func (t *Task) Choices(d Doc) ([]string, error) {
	if t.ChoiceList != nil {
		return t.ChoiceList, nil
	}
	if t.DocToChoice == nil {
		return nil, nil
	}
	v, err := t.DocToChoice.RenderValue(d)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("doc_to_choice: want a list, got %s", kindOf(v))
	}
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = hooks.PyStr(c)
	}
	return out, nil
}

// shotText and shotTarget render a few-shot example with fewshot_config's
// templates (inherited from the task unless it set its own).
func (t *Task) shotText(d Doc) (string, error) { return t.Fewshot.DocToText.RenderString(d) }
func (t *Task) shotTarget(d Doc) (string, error) {
	// build_qa_turn: a list target shows as its first item, an index
	// target as its choice's text.
	if v, isList, err := t.Fewshot.DocToTarget.listValue(d); err != nil || isList {
		if err != nil || len(v) == 0 {
			return "", err
		}
		return hooks.PyStr(v[0]), nil
	}
	if !t.HasChoices() {
		return t.Fewshot.DocToTarget.RenderString(d)
	}
	v, err := docTarget(t.Fewshot.DocToTarget, d)
	if err != nil {
		return "", err
	}
	i, ok := v.(int)
	if !ok {
		return v.(string), nil
	}
	choices, err := t.Choices(d)
	if err != nil {
		return "", err
	}
	if i < 0 || i >= len(choices) {
		return "", fmt.Errorf("doc_to_target: index %d outside the %d choices", i, len(choices))
	}
	return choices[i], nil
}

// HasChoices says whether the task sets doc_to_choice.
func (t *Task) HasChoices() bool { return t.DocToChoice != nil || t.ChoiceList != nil }

// Filter returns the task's filter pipeline with the given name.
func (t *Task) Filter(name string) (FilterPipeline, bool) {
	i := slices.IndexFunc(t.Filters, func(f FilterPipeline) bool { return f.Name == name })
	if i < 0 {
		return FilterPipeline{}, false
	}
	return t.Filters[i], true
}

// Describe is the task's result-defining configuration, for manifests and
// fingerprints: everything that changes prompts or scores.
func (t *Task) Describe() map[string]any {
	out := map[string]any{
		// The file's name and the kind of source, not its directory: a task
		// directory moved elsewhere is the same task (fingerprints hash this).
		"task": t.Name, "file": path.Base(filepath.ToSlash(t.File)), "source": sourceKind(t.Source), "version": t.Version,
		"dataset_path": t.DatasetPath, "dataset_name": t.DatasetName, "split": t.EvalSplit(),
		"num_fewshot": t.NumFewshot, "fewshot_sampler": string(t.Fewshot.Sampler), "fewshot_split": t.ShotSplit(),
		"fewshot_samples": len(t.Fewshot.Samples), "until": t.Until, "max_gen_toks": t.MaxNewTokens,
		"repeats": t.Repeats, "target_delimiter": t.TargetDelimiter, "fewshot_delimiter": t.FewshotDelimiter,
	}
	if t.ShouldDecontaminate {
		out["should_decontaminate"] = true
	}
	if len(t.Ports) > 0 {
		var ps []string
		for _, p := range t.Ports {
			// Function and file hash, not the folder: a moved task tree is
			// the same task.
			ps = append(ps, p.Module+"."+p.Function+" sha256:"+p.SHA256)
		}
		out["ports"] = ps
	}
	if len(t.Generation) > 0 {
		out["generation_kwargs"] = maps.Clone(t.Generation)
	}
	if len(t.PythonHooks) > 0 {
		out["python_hooks"] = t.describeHooks()
	}
	if IsScoredOutput(t.OutputType) { // absent for generate_until: earlier runs' fingerprints stay
		out["output_type"] = t.OutputType
	}
	var fl []string
	for _, f := range t.Filters {
		var steps []string
		for _, s := range f.Steps {
			if s.Port != nil {
				steps = append(steps, s.Port.Module+"."+s.Function)
				continue
			}
			steps = append(steps, s.Function)
		}
		fl = append(fl, f.Name+": "+strings.Join(steps, " → "))
	}
	out["filters"] = fl
	var ml []string
	for _, m := range t.Metrics {
		ml = append(ml, m.Metric)
	}
	out["metrics"] = ml
	return out
}

// sourceKind is "builtin", "include_path" or "file".
func sourceKind(source string) string {
	switch source {
	case "builtin", "file":
		return source
	}
	return "include_path"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}
