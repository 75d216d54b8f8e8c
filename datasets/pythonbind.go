package datasets

// The prompt side of a task's Python hooks in a run: process_docs and the
// doc_to_text / doc_to_target hooks are plugged in where Go ports plug in
// (Task.ProcessDocs, a template's port), calling the user's Python through
// a PythonRunner. The scoring side runs in eval's grader.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// PythonRunner runs a task's prompt-side Python hooks (package eval/pytask
// implements it over the bridge).
type PythonRunner interface {
	ProcessDocs(task string, h PythonHook, in hooks.Rows) (hooks.Rows, error)
	Text(task string, h PythonHook, doc Doc) (string, error)
}

// bindPython gives the task's Python hooks to r; a hook run and score cannot
// use yet is refused, named.
func bindPython(t *Task, r PythonRunner) error {
	t.pythonBound = true
	for _, h := range t.PythonHooks {
		h := h
		port := &hooks.Port{Function: h.Function}
		switch h.Key {
		case "process_docs":
			port.Docs = func(in hooks.Rows, _ hooks.DocsEnv) (hooks.Rows, error) { return r.ProcessDocs(t.Name, h, in) }
			t.ProcessDocs = &DocsHook{Ref: pythonRef(h), port: port}
			continue
		case "doc_to_text", "doc_to_target", "fewshot_config.doc_to_text", "fewshot_config.doc_to_target":
			port.Text = func(d map[string]any) (string, error) { return r.Text(t.Name, h, d) }
			ref := pythonRef(h)
			tpl := &Template{Key: h.Key, Source: "!function " + ref.Module + "." + h.Function, Ref: &ref, port: port}
			switch h.Key {
			case "doc_to_text":
				if t.Fewshot.DocToText == t.DocToText {
					t.Fewshot.DocToText = tpl // the shots inherit the task's
				}
				t.DocToText = tpl
			case "doc_to_target":
				if t.Fewshot.DocToTarget == t.DocToTarget {
					t.Fewshot.DocToTarget = tpl
				}
				t.DocToTarget = tpl
			case "fewshot_config.doc_to_text":
				t.Fewshot.DocToText = tpl
			default:
				t.Fewshot.DocToTarget = tpl
			}
			continue
		}
		if h.Kind == "aggregation" {
			// Run once per (sampler, seed, filter) when the run finishes,
			// over the values a Python process_results gave each doc, or a
			// passthrough metric's [gold, result].
			overPairs := slices.ContainsFunc(t.Metrics, func(m MetricSpec) bool {
				return m.PythonAggregation != nil && m.PythonAggregation.Key == h.Key && m.PerDocPair()
			})
			if _, ok := t.Hook("process_results"); !ok && !overPairs {
				return fmt.Errorf("task %s: the Python aggregation %s (%s) runs in run and score over a Python process_results' values or a passthrough metric's (acc, f1, ...) only (docs/python-hooks.md): %w",
					t.Name, h.Key, h.Function, ErrUnsupportedTask)
			}
			continue
		}
		if gradingKind(h.Kind) {
			// The grader calls them (eval's LMEvalGrader.Python); the report
			// averages each metric but those a Python aggregation folds, so
			// only mean aggregations fit the rest.
			if m, ok := nonMeanMetric(t); ok {
				return fmt.Errorf("task %s: metric %s aggregates by %s: with Python hooks run and score aggregate by mean only (docs/python-hooks.md): %w",
					t.Name, m.Metric, m.Aggregation, ErrUnsupportedTask)
			}
			continue
		}
		return fmt.Errorf("task %s: the Python hook %s (%s) is not wired into run and score yet: process_docs, doc_to_text, doc_to_target, process_results, filters and metric functions are (docs/python-hooks.md); `tasks --check --python-hooks` counts what the bridge can run: %w",
			t.Name, h.Key, h.Function, ErrUnsupportedTask)
	}
	return nil
}

// nonMeanMetric finds a metric whose aggregation is neither the mean nor a
// Python function.
func nonMeanMetric(t *Task) (MetricSpec, bool) {
	for _, m := range t.Metrics {
		if m.Aggregation != "mean" && m.PythonAggregation == nil {
			return m, true
		}
	}
	return MetricSpec{}, false
}

// PythonResults is the task's process_results when it runs in Python (nil
// for a Go port or none).
func (t *Task) PythonResults() *PythonHook {
	if h, ok := t.Hook("process_results"); ok {
		return &h
	}
	return nil
}

// GradesInPython says a run grades this task with Python hooks (a
// process_results, a filter, a metric or an aggregation function).
func (t *Task) GradesInPython() bool {
	for _, h := range t.PythonHooks {
		if gradingKind(h.Kind) {
			return true
		}
	}
	return false
}

// gradingKind: hooks of this kind run while responses are graded or their
// grades aggregated.
func gradingKind(kind string) bool {
	switch kind {
	case "process_results", "filter", "filter_fn", "registry_filter", "metric", "aggregation":
		return true
	}
	return false
}

// PythonBound says the task's Python hooks were given an interpreter
// (Index.Python): without one, its prompt-side templates are placeholders.
func (t *Task) PythonBound() bool { return t.pythonBound }

// pythonRef names a Python hook as a port is named (module, function, the
// file's hash) for descriptions and errors.
func pythonRef(h PythonHook) hooks.PortRef {
	return hooks.PortRef{Folder: filepath.Base(filepath.Dir(h.File)), Module: strings.TrimSuffix(filepath.Base(h.File), ".py"),
		Function: h.Function, SHA256: h.SHA256}
}
