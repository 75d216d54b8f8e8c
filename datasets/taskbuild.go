package datasets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
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
		"class":           "a Python task class (the whole task in Python; the bridge runs hooks, not task classes)",
	}
	fewshotKeys = []string{"sampler", "split", "samples", "doc_to_text", "doc_to_target", "doc_to_choice",
		"gen_prefix", "fewshot_delimiter", "target_delimiter"}
	metricKeys = []string{"metric", "aggregation", "higher_is_better", "ignore_case", "ignore_punctuation",
		"ignore_numbers", "regexes_to_ignore"}
)

// buildTask turns a merged task config into a Task, refusing what it cannot
// run with every reason at once (RefusedTaskError). With python, a
// `!function` without a Go port is kept for the Python bridge
// (Task.PythonHooks) instead of refused.
func buildTask(rc *rawConfig, python bool) (*Task, error) {
	k := rc.Keys
	g := getter{rc: rc, python: python}
	g.ports = g.resolvePorts()
	for _, key := range sortedKeys(k) {
		if why, ok := refusedKeys[key]; ok {
			// A !function is resolved (or refused) by resolvePorts.
			if !isPortKey(key) || !isFunction(k[key]) {
				g.block(key, key, "%s is not supported", why)
			}
			continue
		}
		if !slices.Contains(taskKeys, key) && !isPortKey(key) {
			g.block(key, "unknown key", "unknown task key (supported: %s)", strings.Join(taskKeys, ", "))
		}
	}
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
		g.block("output_type", "output_type "+t.OutputType, "%q is not one of generate_until, multiple_choice, loglikelihood, loglikelihood_rolling", t.OutputType)
	}
	t.ShouldDecontaminate, _ = k["should_decontaminate"].(bool)
	if md, ok := k["metadata"].(map[string]any); ok {
		if v, ok := md["version"]; ok {
			t.Version = hooks.PyStr(v)
		}
	}
	if unsafe, _ := k["unsafe_code"].(bool); unsafe && python {
		// lm-eval runs these only with --confirm_run_unsafe_code.
		g.block("unsafe_code", "unsafe_code", "the task executes generated code; the Python bridge does not run such tasks")
	}
	t.PythonHooks = g.pythonHooks
	t.Description = g.template("description", "")
	t.DocToText = g.template("doc_to_text", "")
	t.DocToTarget = g.template("doc_to_target", "")
	if _, ok := k["doc_to_choice"]; ok {
		t.ChoiceList, t.DocToChoice = g.choices()
	}
	if _, ok := k["gen_prefix"]; ok {
		t.GenPrefix = g.template("gen_prefix", "")
	}
	t.ProcessDocs = g.docsPort("process_docs")
	t.ProcessResults = g.portRef("process_results")
	t.DataFiles = g.dataFiles()
	t.Fewshot = g.fewshot(t)
	t.Until, t.MaxNewTokens, t.Generation = g.generation(t)
	t.Filters = g.filters()
	t.PythonHooks = append(t.PythonHooks, g.registryHooks...)
	if IsScoredOutput(t.OutputType) {
		if _, ok := k["filter_list"]; ok {
			g.block("filter_list", "filter_list on "+t.OutputType, "filters on %s responses are not supported", t.OutputType)
		}
		// The scored pipeline grades with the type's metrics; a ported
		// process_results would be silently ignored there.
		if t.ProcessResults != nil {
			g.block("process_results", "process_results on "+t.OutputType, "a ported process_results is not supported for output_type %s", t.OutputType)
		}
		t.Metrics = g.scoreMetrics(t.OutputType)
	} else {
		t.Metrics = g.metrics(t)
	}
	t.Ports = g.usedPorts()
	if t.EvalSplit() == "" && len(t.DataFiles) == 0 {
		g.block("test_split", "no split", "task %s names neither test_split nor validation_split", t.Name)
	}
	var checked []*Template // the shots inherit the task's templates
	for _, tpl := range []*Template{t.Description, t.DocToText, t.DocToTarget, t.DocToChoice, t.GenPrefix,
		t.Fewshot.DocToText, t.Fewshot.DocToTarget, t.Fewshot.GenPrefix} {
		if slices.Contains(checked, tpl) {
			continue
		}
		checked = append(checked, tpl)
		if err := tpl.Check(); err != nil {
			g.block(tpl.Key, "invalid Jinja", "%v", err)
			g.blockers[len(g.blockers)-1].Err = err
		}
	}
	if t.Repeats < 1 {
		g.block("repeats", "repeats", "%d: want at least 1", t.Repeats)
	}
	if len(g.blockers) > 0 {
		return nil, &RefusedTaskError{Task: t.Name, OutputType: t.OutputType, Blockers: g.blockers}
	}
	return t, nil
}

// getter reads typed values from a config, collecting every blocker.
type getter struct {
	rc       *rawConfig
	blockers []Blocker
	ports    map[string]portUse // !function values by key path, resolved
	// python: a !function without a Go port is a Python hook (pythonHooks)
	// for the bridge, not a blocker; registryHooks are the filters lm-eval
	// registers that the bridge runs by name.
	python                     bool
	pythonHooks, registryHooks []PythonHook
}

// block records a blocker of key; class groups it in tallies.
func (g *getter) block(key, class, format string, args ...any) {
	g.blockers = append(g.blockers, Blocker{Where: g.rc.where(key), Key: key, Reason: fmt.Sprintf(format, args...), Class: class})
}

// fail records a malformed value of key.
func (g *getter) fail(key, format string, args ...any) { g.block(key, key, format, args...) }

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
		return hooks.PyStr(x)
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
		return NewTemplate(key, hooks.PyStr(x))
	case pyFunction:
		if t, ok := g.portTemplate(key, key); ok {
			return t
		}
		// resolvePorts recorded the blocker, or the Python hook that renders it.
		return NewTemplate(key, def)
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
		// trust_remote_code only lets the datasets library run a loading
		// script; data read from files here runs no code either way.
		if key != "data_files" && key != "trust_remote_code" {
			g.block("dataset_kwargs", "dataset_kwargs."+key, "%s is not supported (only data_files and trust_remote_code)", key)
			return nil
		}
	}
	if _, ok := m["data_files"]; !ok {
		return nil
	}
	switch df := m["data_files"].(type) {
	case string:
		out["train"] = []string{df} // datasets' rule: a bare path is the train split
	case []any:
		for _, e := range df {
			out["train"] = append(out["train"], hooks.PyStr(e))
		}
	case map[string]any:
		for split, v := range df {
			switch x := v.(type) {
			case string:
				out[split] = []string{x}
			case []any:
				for _, e := range x {
					out[split] = append(out[split], hooks.PyStr(e))
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
