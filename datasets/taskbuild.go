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
	if ot := g.strOr("output_type", "generate_until"); ot != "generate_until" {
		return nil, taskError(rc, "output_type", "%q needs log-likelihoods; only generate_until tasks are supported", ot)
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
		t.DocToChoice = g.template("doc_to_choice", "")
	}
	if _, ok := k["gen_prefix"]; ok {
		t.GenPrefix = g.template("gen_prefix", "")
	}
	t.DataFiles = g.dataFiles()
	t.Fewshot = g.fewshot(t)
	t.Until, t.MaxNewTokens, t.Generation = g.generation(t)
	t.Filters = g.filters()
	t.Metrics = g.metrics()
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

// fewshot builds fewshot_config with lm-eval's inheritance from the task.
func (g *getter) fewshot(t *Task) FewshotConfig {
	fc := FewshotConfig{Sampler: SamplerRandom, Split: t.FewshotSplit, DocToText: t.DocToText, DocToTarget: t.DocToTarget,
		GenPrefix: t.GenPrefix, TargetDelimiter: t.TargetDelimiter, FewshotDelimiter: t.FewshotDelimiter}
	v, ok := g.rc.Keys["fewshot_config"]
	if !ok || v == nil {
		return fc
	}
	m, ok := v.(map[string]any)
	if !ok {
		g.fail("fewshot_config", "want a mapping")
		return fc
	}
	for _, key := range sortedKeys(m) {
		if !slices.Contains(fewshotKeys, key) {
			g.fail("fewshot_config", "%s is not supported (supported: %s)", key, strings.Join(fewshotKeys, ", "))
			return fc
		}
	}
	if s, ok := m["sampler"].(string); ok {
		switch Sampler(s) {
		case SamplerRandom, SamplerFirstN:
			fc.Sampler = Sampler(s)
		default:
			g.fail("fewshot_config", "sampler %q: want default or first_n", s)
		}
	}
	if s, ok := m["split"].(string); ok {
		fc.Split = s
	}
	str := func(key string, dst *string) {
		if s, ok := m[key].(string); ok {
			*dst = s
		}
	}
	str("target_delimiter", &fc.TargetDelimiter)
	str("fewshot_delimiter", &fc.FewshotDelimiter)
	if s, ok := m["doc_to_text"].(string); ok {
		fc.DocToText = NewTemplate("fewshot_config.doc_to_text", s)
	}
	if s, ok := m["doc_to_target"].(string); ok {
		fc.DocToTarget = NewTemplate("doc_to_target", s)
	}
	if s, ok := m["gen_prefix"].(string); ok {
		fc.GenPrefix = NewTemplate("fewshot_config.gen_prefix", s)
	}
	if _, ok := m["doc_to_choice"]; ok {
		g.fail("fewshot_config", "doc_to_choice is not supported")
	}
	if s, ok := m["samples"]; ok && s != nil {
		list, ok := s.([]any)
		if !ok {
			g.fail("fewshot_config", "samples: want a list of mappings")
			return fc
		}
		for i, e := range list {
			d, ok := e.(map[string]any)
			if !ok {
				g.fail("fewshot_config", "samples[%d]: want a mapping, got %s", i, kindOf(e))
				return fc
			}
			fc.Samples = append(fc.Samples, d)
		}
	}
	return fc
}

// generation reads generation_kwargs: until (default: the few-shot
// delimiter, as lm-eval), max_gen_toks (default 256), the rest recorded.
func (g *getter) generation(t *Task) ([]string, int, map[string]any) {
	until, maxNew := []string{t.FewshotDelimiter}, DefaultMaxNewTokens
	v, ok := g.rc.Keys["generation_kwargs"]
	if !ok || v == nil {
		return until, maxNew, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		g.fail("generation_kwargs", "want a mapping")
		return until, maxNew, nil
	}
	switch u := m["until"].(type) {
	case nil:
	case string:
		until = []string{u}
	case []any:
		until = nil
		for _, e := range u {
			s, ok := e.(string)
			if !ok {
				g.fail("generation_kwargs", "until: want strings, got %s", kindOf(e))
				return nil, 0, nil
			}
			until = append(until, s)
		}
	default:
		g.fail("generation_kwargs", "until: want a string or a list")
	}
	if x, ok := m["max_gen_toks"]; ok {
		i, ok := x.(int64)
		if !ok || i < 1 {
			g.fail("generation_kwargs", "max_gen_toks: want a positive integer")
		}
		maxNew = int(i)
	}
	return until, maxNew, m
}

func (g *getter) filters() []FilterPipeline {
	v, ok := g.rc.Keys["filter_list"]
	if !ok || v == nil {
		// lm-eval's default for generate_until: one "none" pipeline, take_first.
		return []FilterPipeline{{Name: "none", Steps: []FilterStep{{Function: "take_first"}}}}
	}
	list, ok := v.([]any)
	if !ok {
		g.fail("filter_list", "want a list of {name, filter}")
		return nil
	}
	var out []FilterPipeline
	for i, e := range list {
		m, ok := e.(map[string]any)
		name, _ := m["name"].(string)
		steps, _ := m["filter"].([]any)
		if !ok || name == "" || steps == nil {
			g.fail("filter_list", "entry %d: want {name, filter: [...]}", i)
			return nil
		}
		p := FilterPipeline{Name: name}
		for j, s := range steps {
			sm, ok := s.(map[string]any)
			fn, _ := sm["function"].(string)
			params, known := FilterFunctions[fn]
			if !ok || !known {
				g.fail("filter_list", "%s step %d: function %q is not supported (supported: %s)", name, j, fn, strings.Join(sortedKeys(FilterFunctions), ", "))
				return nil
			}
			step := FilterStep{Function: fn, Params: map[string]any{}}
			for _, key := range sortedKeys(sm) {
				if key == "function" {
					continue
				}
				if !slices.Contains(params, key) {
					g.fail("filter_list", "%s step %d (%s): argument %s is not supported", name, j, fn, key)
					return nil
				}
				step.Params[key] = sm[key]
			}
			p.Steps = append(p.Steps, step)
		}
		if slices.ContainsFunc(out, func(f FilterPipeline) bool { return f.Name == name }) {
			g.fail("filter_list", "two pipelines named %q", name)
			return nil
		}
		out = append(out, p)
	}
	return out
}

func (g *getter) metrics() []MetricSpec {
	v, ok := g.rc.Keys["metric_list"]
	if !ok || v == nil {
		// lm-eval's default metric for generate_until.
		return []MetricSpec{{Metric: "exact_match", Aggregation: "mean", HigherIsBetter: true}}
	}
	list, ok := v.([]any)
	if !ok {
		g.fail("metric_list", "want a list of {metric, ...}")
		return nil
	}
	var out []MetricSpec
	for i, e := range list {
		m, ok := e.(map[string]any)
		name, _ := m["metric"].(string)
		if !ok || !slices.Contains(MetricNames, name) {
			g.fail("metric_list", "entry %d: metric %v is not supported (supported: %s)", i, m["metric"], strings.Join(MetricNames, ", "))
			return nil
		}
		ms := MetricSpec{Metric: name, Aggregation: "mean", HigherIsBetter: true}
		for _, key := range sortedKeys(m) {
			if !slices.Contains(metricKeys, key) {
				g.fail("metric_list", "%s: option %s is not supported", name, key)
				return nil
			}
		}
		if a, ok := m["aggregation"]; ok {
			if s, _ := a.(string); s != "mean" {
				g.fail("metric_list", "%s: aggregation %v: only mean is supported", name, a)
				return nil
			}
		}
		flag := func(key string, dst *bool) {
			if x, ok := m[key]; ok {
				b, ok := x.(bool)
				if !ok {
					g.fail("metric_list", "%s: %s: want true or false", name, key)
				}
				*dst = b
			}
		}
		flag("higher_is_better", &ms.HigherIsBetter)
		flag("ignore_case", &ms.IgnoreCase)
		flag("ignore_punctuation", &ms.IgnorePunctuation)
		flag("ignore_numbers", &ms.IgnoreNumbers)
		if r, ok := m["regexes_to_ignore"]; ok {
			list, ok := r.([]any)
			if !ok {
				g.fail("metric_list", "%s: regexes_to_ignore: want a list of patterns", name)
				return nil
			}
			for _, p := range list {
				ms.RegexesToIgnore = append(ms.RegexesToIgnore, PyStr(p))
			}
		}
		out = append(out, ms)
	}
	return out
}
