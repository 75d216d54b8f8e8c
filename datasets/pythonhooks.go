package datasets

// Tasks whose `!function` hooks run in the user's Python (--python-hooks,
// package pyhooks): which places may hold a hook, and the hooks a task uses.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// PythonHook is one `!function module.name` of a task that the Python
// bridge runs: where the YAML names it, the file lm-eval would import it
// from (module.py, dots as folders, next to the YAML that sets the key) and
// the name in it.
type PythonHook struct {
	// Key is the key path, e.g. process_docs, filter_list[0].filter[1].function,
	// metric_list[2].aggregation.
	Key      string
	Kind     string // see pythonHookKind
	File     string
	Function string
	// SHA256 is the file's hash when the task was built ("" when it could
	// not be read; the bridge's check names the problem): it goes into the
	// task's description, so a changed hook never resumes an old run.
	SHA256 string
}

func (h PythonHook) String() string {
	return fmt.Sprintf("%s: !function %s from %s", h.Key, h.Function, h.File)
}

var (
	filterHookPath = regexp.MustCompile(`^filter_list\[\d+\]\.filter\[\d+\]\.(function|filter_fn)$`)
	metricHookPath = regexp.MustCompile(`^metric_list\[\d+\]\.(metric|aggregation)$`)
)

// pythonHookKind says what the bridge does with a !function at keyPath, or
// why it cannot run one there.
func pythonHookKind(keyPath string) (string, error) {
	switch keyPath {
	case "process_docs", "fewshot_config.process_docs":
		return "process_docs", nil
	case "doc_to_text", "doc_to_target", "doc_to_choice", "process_results":
		return keyPath, nil
	case "fewshot_config.doc_to_text", "fewshot_config.doc_to_target":
		return strings.TrimPrefix(keyPath, "fewshot_config."), nil
	case "fewshot_config.samples":
		return "fewshot_samples", nil
	case "class":
		return "", fmt.Errorf("a Python task class replaces lm-eval's whole task logic; the bridge runs hooks, not task classes")
	case "custom_dataset":
		return "", fmt.Errorf("a Python dataset loader is not run by the bridge")
	case "doc_to_image", "doc_to_audio":
		return "", fmt.Errorf("multimodal input is not supported")
	}
	if m := filterHookPath.FindStringSubmatch(keyPath); m != nil {
		if m[1] == "filter_fn" {
			return "filter_fn", nil
		}
		return "filter", nil
	}
	if m := metricHookPath.FindStringSubmatch(keyPath); m != nil {
		return m[1], nil
	}
	return "", fmt.Errorf("the bridge runs no hook at %s", keyPath)
}

// addPythonHook records a !function without a Go port as a hook for the
// bridge, or a blocker where the bridge cannot run one (each named).
func (g *getter) addPythonHook(key string, fp functionAt) {
	kind, err := pythonHookKind(fp.path)
	if err != nil {
		g.block(key, "python "+hookClass(fp.path), "%s at %s: %v", fp.f, fp.path, err)
		return
	}
	i := strings.LastIndex(fp.f.Spec, ".")
	if i <= 0 || i == len(fp.f.Spec)-1 {
		g.block(key, hookClass(fp.path), "%s at %s: want !function module.name", fp.f, fp.path)
		return
	}
	module, fn := fp.f.Spec[:i], fp.f.Spec[i+1:]
	origin := g.rc.Origin[key]
	if origin == "" {
		origin = g.rc.File
	}
	if strings.HasPrefix(origin, "builtin:") {
		g.block(key, hookClass(fp.path), "%s at %s: a built-in task has no Python files", fp.f, fp.path)
		return
	}
	file := g.hookFile(origin, module)
	g.pythonHooks = append(g.pythonHooks, PythonHook{Key: fp.path, Kind: kind, File: file, Function: fn, SHA256: fileSHA256(file)})
}

// hookFile is the file lm-eval imports module from: module.py (dots as
// folders) next to the YAML; failing that lm-eval imports the module by
// name, which for lm_eval.tasks.X is X under the include directory when it
// is lm-eval's task tree.
func (g *getter) hookFile(origin, module string) string {
	rel := filepath.FromSlash(strings.ReplaceAll(module, ".", "/")) + ".py"
	file := filepath.Join(filepath.Dir(origin), rel)
	if _, err := os.Stat(file); err == nil || g.rc.Root == "" {
		return file
	}
	if sub, ok := strings.CutPrefix(module, "lm_eval.tasks."); ok {
		if f := filepath.Join(g.rc.Root, filepath.FromSlash(strings.ReplaceAll(sub, ".", "/"))+".py"); fileExists(f) {
			return f
		}
	}
	return file
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// fileSHA256 hashes a hook file (maxHookFileBytes bounds it, as for ports).
func fileSHA256(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if n, err := io.Copy(h, io.LimitReader(f, maxHookFileBytes+1)); err != nil || n > maxHookFileBytes {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// describeHooks is the hooks' part of Task.Describe: key, file name,
// function and hash of each (the folder is left out, as for the YAML).
func (t *Task) describeHooks() []string {
	var out []string
	for _, h := range t.PythonHooks {
		if h.Kind == "registry_filter" {
			out = append(out, fmt.Sprintf("%s: lm-eval's filter %s", h.Key, h.Function))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s.%s sha256:%s", h.Key, strings.TrimSuffix(filepath.Base(h.File), ".py"), h.Function, h.SHA256))
	}
	return out
}

// Hook returns the task's Python hook at key path, if it has one.
func (t *Task) Hook(key string) (PythonHook, bool) {
	i := slices.IndexFunc(t.PythonHooks, func(h PythonHook) bool { return h.Key == key })
	if i < 0 {
		return PythonHook{}, false
	}
	return t.PythonHooks[i], true
}

// isGoMetric: the registry (package hooks) has a Go metric of that name.
func isGoMetric(name string) bool { _, ok := hooks.LookupMetric(name); return ok }

// isCorpusMetric: the registry has a corpus metric (bleu, chrf, ter) of that name.
func isCorpusMetric(name string) bool { _, ok := hooks.LookupCorpusMetric(name); return ok }

// pythonFunctionName is how a hook stands in a filter step or metric name
// (FilterStep.Function, MetricSpec.Metric/Aggregation).
func pythonFunctionName(f pyFunction) string { return "!function " + path.Clean(f.Spec) }

// pythonFilterStep reads a filter step the bridge runs: a filter class
// (`function: !function utils.Class`, its other keys the constructor's
// arguments), lm-eval's "custom" filter with a `filter_fn` hook, or a filter
// lm-eval registers by name that Go does not implement (format_span,
// regex_pos, ...), which the interpreter's lm-eval provides; the last is
// recorded in g.registryHooks.
func (g *getter) pythonFilterStep(pipeline, step int, sm map[string]any) (FilterStep, bool) {
	key := fmt.Sprintf("filter_list[%d].filter[%d].", pipeline, step)
	if _, ported := g.ports[key+"function"]; ported {
		return FilterStep{}, false // the Go port runs it
	}
	params := map[string]any{}
	for k, v := range sm {
		if k != "function" {
			params[k] = v
		}
	}
	switch fn := sm["function"].(type) {
	case pyFunction:
		return FilterStep{Function: pythonFunctionName(fn), Params: params, Python: g.recordedHook(key + "function")}, true
	case string:
		if f, ok := sm["filter_fn"].(pyFunction); fn == "custom" && ok {
			delete(params, "filter_fn")
			return FilterStep{Function: pythonFunctionName(f), Params: params, Python: g.recordedHook(key + "filter_fn")}, true
		}
		if _, known := hooks.LookupFilter(fn); !known && fn != "" {
			h := PythonHook{Key: key + "function", Kind: "registry_filter", Function: fn}
			g.registryHooks = append(g.registryHooks, h)
			return FilterStep{Function: fn, Params: params, Python: &h}, true
		}
	}
	return FilterStep{}, false
}

// recordedHook is the Python hook resolvePorts recorded at key path p.
func (g *getter) recordedHook(p string) *PythonHook {
	for i := range g.pythonHooks {
		if g.pythonHooks[i].Key == p {
			h := g.pythonHooks[i]
			return &h
		}
	}
	return nil
}

// pythonMetric reads a metric_list entry with --python-hooks: a metric or
// aggregation function run by the bridge, a metric a process_results hook
// returns, bleu or chrf (native, corpus-level), or lm-eval's passthrough f1
// with a Python aggregation. ok is false for what the regular rules read.
func (g *getter) pythonMetric(t *Task, i int, m map[string]any) (MetricSpec, bool) {
	ms := MetricSpec{Aggregation: "mean", HigherIsBetter: true}
	_, hasResults := t.Hook("process_results")
	hasResults = hasResults || g.ports["process_results"].Port != nil
	aggHook, aggIsHook := m["aggregation"].(pyFunction)
	switch x := m["metric"].(type) {
	case pyFunction:
		ms.Metric = pythonFunctionName(x)
		ms.Python = g.recordedHook(fmt.Sprintf("metric_list[%d].metric", i))
	case string:
		ms.Metric = x
		switch {
		case isGoMetric(x) && !hasResults && !aggIsHook:
			return MetricSpec{}, false // the regular rules
		case isCorpusMetric(x):
			ms.Aggregation = x // lm-eval's default for it, also over process_results values
		case hasResults, isGoMetric(x) && aggIsHook, hooks.IsPassthroughMetric(x) && aggIsHook:
		default:
			g.block("metric_list", "metric "+x, "entry %d: metric %s is not supported (with --python-hooks: %s, %s, a passthrough metric (acc, f1, ...) with a Python aggregation, a !function metric, or any metric a process_results hook returns)",
				i, x, strings.Join(hooks.MetricNames(), ", "), strings.Join(hooks.CorpusMetricNames(), ", "))
			return MetricSpec{}, false
		}
	default:
		g.fail("metric_list", "entry %d: want a metric name or a !function, got %s", i, kindOf(m["metric"]))
		return MetricSpec{}, false
	}
	switch a := m["aggregation"].(type) {
	case nil:
	case string:
		if a != "mean" && a != "nanmean" && a != ms.Aggregation {
			g.fail("metric_list", "%s: aggregation %s: with --python-hooks mean, nanmean, %s or a !function", ms.Metric, a, ms.Aggregation)
			return MetricSpec{}, false
		}
		ms.Aggregation = a
	case pyFunction:
		ms.Aggregation = pythonFunctionName(aggHook)
		ms.PythonAggregation = g.recordedHook(fmt.Sprintf("metric_list[%d].aggregation", i))
	default:
		g.fail("metric_list", "%s: aggregation: want a name or a !function, got %s", ms.Metric, kindOf(a))
		return MetricSpec{}, false
	}
	if hb, ok := m["higher_is_better"].(bool); ok {
		ms.HigherIsBetter = hb
	}
	for _, key := range sortedKeys(m) {
		switch key {
		case "metric", "aggregation", "higher_is_better":
		default:
			if ms.Args == nil {
				ms.Args = map[string]any{}
			}
			ms.Args[key] = m[key]
		}
	}
	return ms, true
}
