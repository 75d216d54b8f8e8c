package datasets

import (
	"fmt"
	"slices"
)

// AggregateMetric is one entry of a group's aggregate_metric_list: how a
// group's score is made from its tasks' scores (lm-eval's AggMetricConfig).
type AggregateMetric struct {
	Metric string
	// Filters are the filter names to aggregate; nil means every filter the
	// member tasks report with Metric (lm-eval >= 0.4.12 discovers them).
	Filters []string
	// WeightBySize weights each task's score by its sample count; false gives
	// every task the same weight. lm-eval >= 0.4.12 defaults it to true.
	WeightBySize bool
}

var aggregateKeys = []string{"metric", "filter_list", "aggregation", "weight_by_size"}

// parseAggregates reads a group's aggregate_metric_list. Anything lm-eval
// would refuse or could not have meant (an aggregation other than mean, an
// unknown key) is an error naming the key, so a group never reports a number
// computed differently from what its file says.
func parseAggregates(v any) ([]AggregateMetric, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if m, one := v.(map[string]any); one {
		list, ok = []any{m}, true // lm-eval wraps a single mapping in a list
	}
	if !ok {
		return nil, fmt.Errorf("aggregate_metric_list: want a list, got %T", v)
	}
	var out []AggregateMetric
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("aggregate_metric_list[%d]: want a mapping, got %T", i, item)
		}
		for k := range m {
			if !slices.Contains(aggregateKeys, k) {
				return nil, fmt.Errorf("aggregate_metric_list[%d]: unsupported key %q", i, k)
			}
		}
		a := AggregateMetric{WeightBySize: true}
		if a.Metric, ok = m["metric"].(string); !ok || a.Metric == "" {
			return nil, fmt.Errorf("aggregate_metric_list[%d].metric: want a metric name", i)
		}
		if agg, set := m["aggregation"]; set && agg != "mean" {
			return nil, fmt.Errorf("aggregate_metric_list[%d].aggregation: %v: only mean is supported (as in lm-eval)", i, agg)
		}
		if w, set := m["weight_by_size"]; set {
			if a.WeightBySize, ok = w.(bool); !ok {
				return nil, fmt.Errorf("aggregate_metric_list[%d].weight_by_size: want true or false, got %v", i, w)
			}
		}
		switch f := m["filter_list"].(type) {
		case nil:
		case string:
			a.Filters = []string{f}
		case []any:
			for _, x := range f {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("aggregate_metric_list[%d].filter_list: want filter names, got %v", i, x)
				}
				a.Filters = append(a.Filters, s)
			}
		default:
			return nil, fmt.Errorf("aggregate_metric_list[%d].filter_list: want a name or a list, got %T", i, f)
		}
		out = append(out, a)
	}
	return out, nil
}
