package eval

// Scoring, lm-eval style: exact_match with regexes_to_ignore, ignore_case,
// ignore_punctuation and ignore_numbers (HF evaluate's exact_match, which
// lm-eval calls), plus numeric_match offered beside it because lm-eval's
// string match says 29.00 != 29.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/reports"
)

// LMEvalGrader implements Grader for lm-eval task configurations: each
// filter pipeline of the task makes an answer, and each metric scores every
// filter's answer against the target.
type LMEvalGrader struct {
	mu    sync.Mutex
	tasks map[string]*taskScorer
	// Python runs a task's Python hooks (--python-hooks); nil refuses a
	// task that has any.
	Python PythonHooks
}

// PythonHooks runs a task's scoring hooks in the user's Python: a
// process_results on one filtered response (its metrics in the order it
// gave them), a filter step, a metric function.
type PythonHooks interface {
	ProcessResults(task string, h datasets.PythonHook, doc map[string]any, columns []string, response string) ([]MetricValue, error)
	Filter(task string, h datasets.PythonHook, params map[string]any) (hooks.FilterFunc, error)
	Metric(task string, h datasets.PythonHook, args map[string]any) (hooks.MetricFunc, error)
	// Aggregate calls an aggregation function on every doc's value (JSON).
	Aggregate(task string, h datasets.PythonHook, values []json.RawMessage) (float64, error)
}

// MetricValue is one metric a process_results returned: a number (Number,
// Value), or a value that is not one (a list); JSON is the value as Python
// wrote it, for a Python aggregation.
type MetricValue struct {
	Metric string
	Value  float64
	Number bool
	JSON   json.RawMessage
}

type taskScorer struct {
	spec    TaskSpec // the configuration compiled
	filters []*Pipeline
	metrics []hooks.MetricFunc
	names   []string // metric names, metrics order
	// results is the ported or Python process_results (nil: the metric
	// functions).
	results func(doc map[string]any, columns []string, response string) ([]MetricValue, error)
}

// NewLMEvalGrader returns a grader that compiles each task's rules on first use.
func NewLMEvalGrader() *LMEvalGrader { return &LMEvalGrader{tasks: map[string]*taskScorer{}} }

func (g *LMEvalGrader) scorer(task TaskSpec) (*taskScorer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	// Keyed by name, checked by content: a grader may see two configurations
	// of one task name (a rescore after the task file changed).
	if s, ok := g.tasks[task.Name]; ok && sameSpec(s.spec, task) {
		return s, nil
	}
	if len(task.Filters) == 0 || len(task.Metrics) == 0 {
		return nil, fmt.Errorf("task %s: no filters or metrics to score with", task.Name)
	}
	s := &taskScorer{spec: task}
	for _, f := range task.Filters {
		p, err := compilePipeline(f, task.Name, g.Python)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		s.filters = append(s.filters, p)
	}
	if i := slices.IndexFunc(task.Metrics, aggregatedOverDocs); i >= 0 && task.Repeats > 1 {
		return nil, fmt.Errorf("task %s: metric %s aggregates over the corpus (%s) with repeats %d: lm-eval aggregates one value per doc; run it without repeats",
			task.Name, task.Metrics[i].Metric, task.Metrics[i].Aggregation, task.Repeats)
	}
	if h := task.PythonResults; h != nil {
		if g.Python == nil {
			return nil, errNoPython(task.Name, "process_results "+h.Function)
		}
		py, name := g.Python, task.Name
		s.results = func(doc map[string]any, columns []string, response string) ([]MetricValue, error) {
			return py.ProcessResults(name, *h, doc, columns, response)
		}
		for _, m := range task.Metrics {
			s.names = append(s.names, m.Metric)
		}
		g.tasks[task.Name] = s
		return s, nil
	}
	if task.ProcessResults != nil {
		p, err := hooks.LookupPort(*task.ProcessResults)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		if p.Results == nil {
			return nil, fmt.Errorf("task %s: %s is not a process_results", task.Name, task.ProcessResults)
		}
		s.results = func(doc map[string]any, columns []string, response string) ([]MetricValue, error) {
			res, err := p.Results(doc, columns, response)
			out := make([]MetricValue, len(res))
			for i, r := range res {
				out[i] = MetricValue{Metric: r.Metric, Value: r.Value, Number: true}
			}
			return out, err
		}
		for _, m := range task.Metrics {
			s.names = append(s.names, m.Metric)
		}
		g.tasks[task.Name] = s
		return s, nil
	}
	for _, m := range task.Metrics {
		fn, err := g.compileMetric(task.Name, m)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		s.metrics, s.names = append(s.metrics, fn), append(s.names, m.Metric)
	}
	g.tasks[task.Name] = s
	return s, nil
}

// sameSpec reports whether two task specs hold the same filters and metrics:
// the same backing arrays (one run's manifest, the common case, checked in
// constant time) or equal contents.
func sameSpec(a, b TaskSpec) bool {
	if len(a.Filters) == len(b.Filters) && len(a.Metrics) == len(b.Metrics) && len(a.Filters) > 0 && len(a.Metrics) > 0 &&
		&a.Filters[0] == &b.Filters[0] && &a.Metrics[0] == &b.Metrics[0] {
		return true
	}
	return reflect.DeepEqual(a.Filters, b.Filters) && reflect.DeepEqual(a.Metrics, b.Metrics) && reflect.DeepEqual(a.ProcessResults, b.ProcessResults) &&
		reflect.DeepEqual(a.PythonResults, b.PythonResults)
}

func (g *LMEvalGrader) compileMetric(task string, m datasets.MetricSpec) (hooks.MetricFunc, error) {
	if m.Python != nil {
		if g.Python == nil {
			return nil, errNoPython(task, m.Metric)
		}
		return g.Python.Metric(task, *m.Python, m.Args)
	}
	if m.PerDocPair() {
		return nil, nil // no per-doc score: Grade keeps [gold, response]
	}
	reg, ok := hooks.LookupMetric(m.Metric)
	if !ok {
		return nil, fmt.Errorf("metric %q is not supported", m.Metric)
	}
	fn, err := reg.New(hooks.MetricOptions{IgnoreCase: m.IgnoreCase, IgnorePunctuation: m.IgnorePunctuation,
		IgnoreNumbers: m.IgnoreNumbers, RegexesToIgnore: m.RegexesToIgnore})
	return fn, err
}

// Grade runs every filter pipeline over the doc's responses and scores each
// answer with every metric (or with the task's ported process_results). A
// pipeline that reduces the responses to one answer (take_first,
// majority_vote + take_first) gives that answer and its scores to every
// response; one that keeps the list gives each response its own. With
// several targets an answer scores 1 when any target scores above 0
// (lm-eval's multiple_target). An empty target (a doc without a valid
// reference) scores 0.
func (g *LMEvalGrader) Grade(task TaskSpec, ref Reference, responses []string) ([]Grade, error) {
	s, err := g.scorer(task)
	if err != nil {
		return nil, err
	}
	out := make([]Grade, len(responses))
	targets := ref.Targets
	if targets == nil {
		targets = []string{ref.Target}
	}
	hasTarget := slices.ContainsFunc(targets, func(t string) bool { return strings.TrimSpace(t) != "" })
	for _, f := range s.filters {
		answers, _, err := f.Apply(responses, ref.Doc)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		if len(answers) != 1 && len(answers) != len(responses) {
			return nil, fmt.Errorf("task %s: filter %s leaves %d answers for %d responses; end it with take_first or majority_vote", task.Name, f.Name, len(answers), len(responses))
		}
		// Each answer is scored once, also when one answer stands for every repeat.
		scores := make([][]reports.Score, len(answers))
		values, raw := make([][]DocValue, len(answers)), make([][]DocValue, len(answers))
		for k, a := range answers {
			if s.results != nil {
				if scores[k], values[k], raw[k], err = s.hookScores(task, f.Name, ref, a); err != nil {
					return nil, err
				}
				continue
			}
			scores[k] = make([]reports.Score, 0, len(s.metrics))
			for j, m := range s.metrics {
				if m == nil {
					v, err := passthroughValue(task, s.names[j], f.Name, targets, a)
					if err != nil {
						return nil, err
					}
					values[k] = append(values[k], v)
					continue
				}
				v := 0.0
				if hasTarget {
					for _, t := range targets {
						x, err := m(a, t)
						if err != nil {
							return nil, fmt.Errorf("task %s: metric %s, filter %s: %w", task.Name, s.names[j], f.Name, err)
						}
						if x > 0 {
							v = 1
							if len(targets) == 1 {
								v = x
							}
							break
						}
					}
				}
				scores[k] = append(scores[k], reports.Score{Metric: s.names[j], Filter: f.Name, Value: v})
			}
		}
		for i := range out {
			k := 0
			if len(answers) == len(responses) {
				k = i
			}
			out[i].Answers = append(out[i].Answers, reports.Answer{Filter: f.Name, Answer: answers[k]})
			out[i].Scores = append(out[i].Scores, scores[k]...)
			out[i].Values = append(out[i].Values, values[k]...)
			out[i].Raw = append(out[i].Raw, raw[k]...)
		}
	}
	return out, nil
}

// hookScores runs the ported or Python process_results on one filtered
// answer and returns its metrics in metric_list order: the scores, the
// values a Python aggregation folds, and the scores Python gave as bools.
func (s *taskScorer) hookScores(task TaskSpec, filter string, ref Reference, answer string) (scores []reports.Score, values, raw []DocValue, err error) {
	res, err := s.results(ref.Doc, ref.Columns, answer)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("task %s: %s: %w", task.Name, resultsName(task), err)
	}
	for j, name := range s.names {
		i := slices.IndexFunc(res, func(r MetricValue) bool { return r.Metric == name })
		if i < 0 {
			return nil, nil, nil, fmt.Errorf("task %s: %s returned no %s (metric_list names it)", task.Name, resultsName(task), name)
		}
		v := DocValue{Metric: name, Filter: filter, JSON: res[i].JSON}
		if aggregatedOverDocs(task.Metrics[j]) {
			values = append(values, v)
			continue
		}
		if !res[i].Number {
			return nil, nil, nil, fmt.Errorf("task %s: %s: metric %s: %.80s is not a number: its aggregation %s would fail on it, as lm-eval's would (a list-valued metric needs a Python aggregation)",
				task.Name, resultsName(task), name, res[i].JSON, task.Metrics[j].Aggregation)
		}
		scores = append(scores, reports.Score{Metric: name, Filter: filter, Value: res[i].Value})
		if j := string(res[i].JSON); j == "true" || j == "false" || isPyInt(res[i].JSON) {
			raw = append(raw, v)
		}
	}
	return scores, values, raw, nil
}

// isPyInt says whether a JSON number is an integer literal, as json.dumps
// writes a Python int (a float always has a '.' or an exponent).
func isPyInt(b json.RawMessage) bool {
	b = bytes.TrimPrefix(b, []byte("-"))
	return len(b) > 0 && !slices.ContainsFunc(b, func(c byte) bool { return c < '0' || c > '9' })
}

// resultsName names a task's process_results, Go port or Python.
func resultsName(task TaskSpec) string {
	if task.PythonResults != nil {
		return "process_results " + task.PythonResults.Function + " (Python)"
	}
	return task.ProcessResults.String()
}

// errNoPython: a Python hook to grade with and no interpreter, as in a
// rescore or merge of a run graded in Python.
func errNoPython(task, what string) error {
	return fmt.Errorf("task %s: %s runs in Python: grading it needs the interpreter (--python-hooks; rescore and merge take it too)", task, what)
}
