package datasets

import (
	"fmt"
	"slices"
	"strings"
)

// Task keys this harness reads, and keys it accepts as documentation only.
// Anything else in a task file is refused by name: a key silently dropped
// would change what is evaluated without anyone noticing.
var (
	taskKeys = []string{"task", "task_alias", "tag", "group", "dataset_path", "dataset_name", "dataset_kwargs",
		"training_split", "validation_split", "test_split", "fewshot_split", "doc_to_text", "doc_to_target",
		"doc_to_choice", "target_delimiter", "fewshot_delimiter", "description", "gen_prefix", "num_fewshot",
		"fewshot_config", "generation_kwargs", "filter_list", "metric_list", "repeats", "metadata", "output_type",
		"should_decontaminate", "doc_to_decontamination_query", "unsafe_code", "group_alias"}
	// refusedKeys are lm-eval features that need Python or another request type.
	refusedKeys = map[string]string{
		"process_docs":    "Python document preprocessing",
		"process_results": "Python scoring",
		"custom_dataset":  "a Python dataset loader",
		"doc_to_image":    "multimodal input",
		"doc_to_audio":    "multimodal input",
		"use_prompt":      "promptsource templates",
		"fewshot_indices": "index-selected few-shot pools",
	}
	fewshotKeys = []string{"sampler", "split", "samples", "doc_to_text", "doc_to_target", "doc_to_choice",
		"gen_prefix", "fewshot_delimiter", "target_delimiter"}
	// FilterFunctions are the filter_list functions this harness implements,
	// with their keyword arguments.
	FilterFunctions = map[string][]string{
		"regex":              {"regex_pattern", "group_select", "fallback"},
		"take_first":         nil,
		"take_first_k":       {"k"},
		"majority_vote":      nil,
		"remove_whitespace":  nil,
		"lowercase":          nil,
		"uppercase":          nil,
		"map":                {"mapping_dict", "default_value"},
		"multi_choice_regex": {"regex_pattern", "group_select", "fallback", "ignore_case", "ignore_punctuation", "regexes_to_ignore"},
	}
	// MetricNames are the metric_list metrics this harness implements:
	// lm-eval's exact_match, and numeric_match (ours: exact decimal equality).
	MetricNames = []string{"exact_match", "numeric_match"}
	metricKeys  = []string{"metric", "aggregation", "higher_is_better", "ignore_case", "ignore_punctuation",
		"ignore_numbers", "regexes_to_ignore"}
)

// taskError names the file that set key (the including or an included file).
func taskError(rc *rawConfig, key, format string, args ...any) error {
	where := rc.File
	if o := rc.Origin[key]; o != "" && o != rc.File {
		where = o + " (included by " + rc.File + ")"
	}
	return fmt.Errorf("%s: key %s: %s: %w", where, key, fmt.Sprintf(format, args...), ErrUnsupportedTask)
}

// buildTask turns a merged task config into a Task, refusing what it cannot run.
func buildTask(rc *rawConfig) (*Task, error) {
	k := rc.Keys
	for _, key := range sortedKeys(k) {
		if path, f, ok := findFunction(key, k[key]); ok {
			at := ""
			if path != key {
				at = " at " + path
			}
			return nil, taskError(rc, key, "%s%s is Python code, which entropix-eval cannot run", f, at)
		}
		if why, ok := refusedKeys[key]; ok {
			return nil, taskError(rc, key, "%s is not supported", why)
		}
		if !slices.Contains(taskKeys, key) {
			return nil, taskError(rc, key, "unknown task key (supported: %s)", strings.Join(taskKeys, ", "))
		}
	}
	g := getter{rc: rc}
	t := &Task{
		Name: g.str("task"), Alias: g.str("task_alias"), File: rc.File,
		DatasetPath: g.str("dataset_path"), DatasetName: g.str("dataset_name"),
		TrainingSplit: g.str("training_split"), ValidationSplit: g.str("validation_split"),
		TestSplit: g.str("test_split"), FewshotSplit: g.str("fewshot_split"),
		TargetDelimiter: g.strOr("target_delimiter", " "), FewshotDelimiter: g.strOr("fewshot_delimiter", "\n\n"),
		NumFewshot: g.intOr("num_fewshot", 0), Repeats: g.intOr("repeats", 1), FewshotSeed: DefaultFewshotSeed,
		Tags: g.strList("tag"),
	}
	if t.Name == "" {
		return nil, fmt.Errorf("%s: no task name (key task): %w", rc.File, ErrUnsupportedTask)
	}
	t.OutputType = g.strOr("output_type", OutputGenerateUntil)
	if t.OutputType != OutputGenerateUntil && !IsScoredOutput(t.OutputType) {
		return nil, taskError(rc, "output_type", "%q is not one of generate_until, multiple_choice, loglikelihood, loglikelihood_rolling", t.OutputType)
	}
	if v, ok := k["should_decontaminate"].(bool); ok && v {
		return nil, taskError(rc, "should_decontaminate", "decontamination is not supported")
	}
	if md, ok := k["metadata"].(map[string]any); ok {
		if v, ok := md["version"]; ok {
			t.Version = PyStr(v)
		}
	}
	t.Description = g.template("description", "")
	t.DocToText = g.template("doc_to_text", "")
	t.DocToTarget = g.template("doc_to_target", "")
	if _, ok := k["doc_to_choice"]; ok {
		t.ChoiceList, t.DocToChoice = g.choices()
	}
	if _, ok := k["gen_prefix"]; ok {
		t.GenPrefix = g.template("gen_prefix", "")
	}
	t.DataFiles = g.dataFiles()
	t.Fewshot = g.fewshot(t)
	t.Until, t.MaxNewTokens, t.Generation = g.generation(t)
	t.Filters = g.filters()
	if IsScoredOutput(t.OutputType) {
		if _, ok := k["filter_list"]; ok {
			return nil, taskError(rc, "filter_list", "filters on %s responses are not supported", t.OutputType)
		}
		t.Metrics = g.scoreMetrics(t.OutputType)
	} else {
		t.Metrics = g.metrics()
	}
	if g.err != nil {
		return nil, g.err
	}
	if t.EvalSplit() == "" && len(t.DataFiles) == 0 {
		return nil, fmt.Errorf("%s: task %s names neither test_split nor validation_split: %w", rc.File, t.Name, ErrUnsupportedTask)
	}
	for _, tpl := range []*Template{t.Description, t.DocToText, t.DocToTarget, t.DocToChoice, t.GenPrefix,
		t.Fewshot.DocToText, t.Fewshot.DocToTarget, t.Fewshot.GenPrefix} {
		if err := tpl.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", rc.File, err)
		}
	}
	if t.Repeats < 1 {
		return nil, taskError(rc, "repeats", "%d: want at least 1", t.Repeats)
	}
	return t, nil
}

// getter reads typed values from a config, keeping the first error.
type getter struct {
	rc  *rawConfig
	err error
}

func (g *getter) fail(key, format string, args ...any) {
	if g.err == nil {
		g.err = taskError(g.rc, key, format, args...)
	}
}

func (g *getter) str(key string) string { return g.strOr(key, "") }

func (g *getter) strOr(key, def string) string {
	v, ok := g.rc.Keys[key]
	if !ok || v == nil {
		return def
	}
	switch x := v.(type) {
	case string:
		return x
	case int64, float64, bool:
		return PyStr(x)
	}
	g.fail(key, "want a string, got %s", kindOf(v))
	return def
}

func (g *getter) intOr(key string, def int) int {
	v, ok := g.rc.Keys[key]
	if !ok || v == nil {
		return def
	}
	if i, ok := v.(int64); ok {
		return int(i)
	}
	g.fail(key, "want an integer, got %s", kindOf(v))
	return def
}

func (g *getter) strList(key string) []string {
	switch x := g.rc.Keys[key].(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				g.fail(key, "want strings, got %s", kindOf(e))
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	g.fail(key, "want a string or a list of strings")
	return nil
}

func (g *getter) template(key, def string) *Template {
	v, ok := g.rc.Keys[key]
	if !ok || v == nil {
		return NewTemplate(key, def)
	}
	switch x := v.(type) {
	case string:
		return NewTemplate(key, x)
	case int64:
		return NewTemplate(key, PyStr(x))
	}
	g.fail(key, "want a template string, got %s", kindOf(v))
	return NewTemplate(key, def)
}

func (g *getter) dataFiles() map[string][]string {
	kw, ok := g.rc.Keys["dataset_kwargs"]
	if !ok || kw == nil {
		return nil
	}
	m, ok := kw.(map[string]any)
	if !ok {
		g.fail("dataset_kwargs", "want a mapping")
		return nil
	}
	out := map[string][]string{}
	for _, key := range sortedKeys(m) {
		if key != "data_files" {
			g.fail("dataset_kwargs", "%s is not supported (only data_files)", key)
			return nil
		}
	}
	switch df := m["data_files"].(type) {
	case string:
		out["train"] = []string{df} // datasets' rule: a bare path is the train split
	case []any:
		for _, e := range df {
			out["train"] = append(out["train"], PyStr(e))
		}
	case map[string]any:
		for split, v := range df {
			switch x := v.(type) {
			case string:
				out[split] = []string{x}
			case []any:
				for _, e := range x {
					out[split] = append(out[split], PyStr(e))
				}
			default:
				g.fail("dataset_kwargs", "data_files.%s: want a path or a list of paths", split)
			}
		}
	default:
		g.fail("dataset_kwargs", "data_files: want a path, a list, or a mapping of split to paths")
	}
	return out
}
