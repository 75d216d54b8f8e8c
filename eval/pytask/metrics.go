package pytask

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/pyhooks"
	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// checkMetric says whether a metric without process_results is scored here:
// a Go metric of the registry (package hooks: exact_match, ...),
// bleu/chrf/ter/f1 (lm-eval's passthrough: the per-doc value is [reference,
// response] for the aggregation), or a metric function.
func checkMetric(task *datasets.Task, m datasets.MetricSpec) error {
	switch {
	case isGoMetric(m.Metric):
		_, err := goMetric(m)
		return err
	case isPassthrough(m.Metric):
	case strings.HasPrefix(m.Metric, "!function "):
		if _, ok := metricHook(task, m); !ok {
			return fmt.Errorf("metric %s: no hook recorded", m.Metric)
		}
	default:
		return fmt.Errorf("metric %s is not scored beside Python hooks", m.Metric)
	}
	return nil
}

func isGoMetric(name string) bool { _, ok := hooks.LookupMetric(name); return ok }

func isCorpusMetric(name string) bool { _, ok := hooks.LookupCorpusMetric(name); return ok }

// goMetric compiles a registry metric with its metric_list options.
func goMetric(m datasets.MetricSpec) (hooks.MetricFunc, error) {
	reg, _ := hooks.LookupMetric(m.Metric)
	return reg.New(hooks.MetricOptions{IgnoreCase: m.IgnoreCase, IgnorePunctuation: m.IgnorePunctuation,
		IgnoreNumbers: m.IgnoreNumbers, RegexesToIgnore: m.RegexesToIgnore})
}

// isPassthrough: lm-eval's metric function returns its input, [gold,
// result], and the aggregation does the work (bleu, f1, acc, ...).
func isPassthrough(name string) bool { return hooks.IsPassthroughMetric(name) }

// metricHook finds the hook of a metric_list entry's !function metric or
// aggregation (field "metric" or "aggregation").
func metricHook(task *datasets.Task, m datasets.MetricSpec) (pyhooks.Hook, bool) {
	return specHook(task, m, "metric")
}

func specHook(task *datasets.Task, m datasets.MetricSpec, field string) (pyhooks.Hook, bool) {
	i := slices.IndexFunc(task.Metrics, func(x datasets.MetricSpec) bool { return x.Metric == m.Metric })
	h, ok := task.Hook(fmt.Sprintf("metric_list[%d].%s", i, field))
	return pyhooks.Hook{File: h.File, Function: h.Function}, ok
}

// metrics scores filtered values with the metric_list's metrics.
func (s *Scorer) metrics(ctx context.Context, docs []Doc, ids []int, filtered []json.RawMessage) ([]*pyjson.Dict, error) {
	out := make([]*pyjson.Dict, len(docs))
	for i := range out {
		out[i] = pyjson.NewDict()
	}
	for _, m := range s.task.Metrics {
		name := metricName(m)
		switch {
		case isGoMetric(m.Metric):
			fn, err := goMetric(m)
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", s.task.Name, err)
			}
			for i, d := range docs {
				var pred string
				if err := json.Unmarshal(filtered[i], &pred); err != nil {
					return nil, fmt.Errorf("task %s: doc %d: %s needs one string answer; end the filter with take_first", s.task.Name, ids[i], name)
				}
				v, err := fn(pred, d.Target)
				if err != nil {
					return nil, fmt.Errorf("task %s: doc %d: %s: %w", s.task.Name, ids[i], name, err)
				}
				out[i].Set(name, v)
			}
		case isPassthrough(m.Metric):
			for i, d := range docs {
				v, err := pyjson.Decode(filtered[i])
				if err != nil {
					return nil, fmt.Errorf("task %s: doc %d: filtered value: %w", s.task.Name, ids[i], err)
				}
				out[i].Set(name, []any{d.Target, v})
			}
		default:
			h, _ := metricHook(s.task, m)
			items := make([]pyhooks.MetricItem, len(docs))
			for i, d := range docs {
				gold, _ := json.Marshal(d.Target)
				items[i] = pyhooks.MetricItem{Gold: gold, Result: filtered[i]}
			}
			raw, err := s.bridge.Metric(ctx, pyhooks.Call{Task: s.task.Name, Kind: "metric", Hook: h, Docs: ids}, m.Args, items)
			if err != nil {
				return nil, err
			}
			for i, r := range raw {
				v, err := pyjson.Decode(r)
				if err != nil {
					return nil, fmt.Errorf("task %s: metric %s on doc %d: %w", s.task.Name, name, ids[i], err)
				}
				out[i].Set(name, v)
			}
		}
	}
	return out, nil
}

// metricName is the key a metric's values go under: its name, or for a
// !function metric the function's name (lm-eval keys by __name__).
func metricName(m datasets.MetricSpec) string {
	if f, ok := strings.CutPrefix(m.Metric, "!function "); ok {
		return f[strings.LastIndex(f, ".")+1:]
	}
	return m.Metric
}

// Aggregate is one metric's value over the docs under one filter, keyed
// as lm-eval's results are: "metric,filter".
type Aggregate struct {
	Metric, Filter string
	Value          float64
}

// Aggregate folds each metric's per-doc values with its metric_list
// aggregation, filter by filter in filter_list order.
func (s *Scorer) Aggregate(ctx context.Context, results []DocResult) ([]Aggregate, error) {
	var out []Aggregate
	for _, p := range s.pipelines {
		for _, m := range s.task.Metrics {
			name := metricName(m)
			values := make([]any, len(results))
			for i, r := range results {
				v, ok := r.Metrics[p.name].Get(name)
				if !ok {
					return nil, fmt.Errorf("task %s: doc %d has no %s under filter %s", s.task.Name, r.ID, name, p.name)
				}
				values[i] = v
			}
			v, err := s.fold(ctx, m, values)
			if err != nil {
				return nil, fmt.Errorf("task %s: %s,%s: %w", s.task.Name, name, p.name, err)
			}
			out = append(out, Aggregate{Metric: name, Filter: p.name, Value: v})
		}
	}
	return out, nil
}

func (s *Scorer) fold(ctx context.Context, m datasets.MetricSpec, values []any) (float64, error) {
	switch agg := m.Aggregation; {
	case agg == "mean", agg == "nanmean":
		return mean(values, agg == "nanmean")
	case isCorpusMetric(agg):
		cm, _ := hooks.LookupCorpusMetric(agg)
		items, err := textmetrics.ItemsFromPairs(values)
		if err != nil {
			return 0, err
		}
		return cm.Fold(items)
	case strings.HasPrefix(agg, "!function "):
		h, ok := specHook(s.task, m, "aggregation")
		if !ok {
			return 0, fmt.Errorf("aggregation %s: no hook recorded", agg)
		}
		lines := make([][]byte, len(values))
		for i, v := range values {
			b, err := pyjson.Dumps(v)
			if err != nil {
				return 0, err
			}
			lines[i] = b
		}
		raw, err := s.bridge.Aggregate(ctx, pyhooks.Call{Task: s.task.Name, Kind: "aggregation", Hook: h}, lines)
		if err != nil {
			return 0, err
		}
		v, err := pyjson.Decode(raw)
		if err != nil {
			return 0, err
		}
		return number(v)
	}
	return 0, fmt.Errorf("aggregation %s is not supported", m.Aggregation)
}

// mean is lm-eval's mean (sum / len; bools count 1 and 0) or nanmean (NaN
// left out; NaN when nothing is left).
func mean(values []any, skipNaN bool) (float64, error) {
	sum, n := 0.0, 0
	for _, v := range values {
		f, err := number(v)
		if err != nil {
			return 0, err
		}
		if skipNaN && math.IsNaN(f) {
			continue
		}
		sum += f
		n++
	}
	if n == 0 {
		return math.NaN(), nil
	}
	return sum / float64(n), nil
}

// number reads a scalar metric value: a number or a bool (Python's True is 1).
func number(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return x, nil
	case json.Number:
		return x.Float64()
	}
	return 0, fmt.Errorf("a value of %T cannot be averaged (lm-eval's mean would fail too; a list-valued metric needs its own aggregation)", v)
}
