package hooks

import (
	"fmt"
	"maps"
	"slices"
)

// Values is what flows through a filter pipeline: one doc's responses (all
// its repeats, in order), or one answer once a step such as take_first has
// reduced them (lm-eval then holds a str, not a list).
type Values struct {
	Items  []string
	Single bool
}

// FilterFunc is one compiled filter step over a doc's responses; doc is the
// processed document (filters such as multi_choice_regex read its columns).
type FilterFunc func(v Values, doc map[string]any) (Values, error)

// Filter is a filter_list function: its keyword arguments and constructor.
type Filter struct {
	Name string
	// Params are the keyword arguments the YAML may give it.
	Params []string
	New    func(params map[string]any) (FilterFunc, error)
}

// MetricOptions are metric_list's options besides the name.
type MetricOptions struct {
	IgnoreCase, IgnorePunctuation, IgnoreNumbers bool
	RegexesToIgnore                              []string
}

// MetricFunc scores one filtered response against one reference. An error
// (a regexes_to_ignore rule past the regex time limit) stops the grading:
// a score computed without the rule would be silently wrong.
type MetricFunc func(prediction, reference string) (float64, error)

// Metric is a metric_list metric: the options it reads and its constructor.
type Metric struct {
	Name string
	// Options are the metric_list keys it honours beyond metric,
	// aggregation and higher_is_better.
	Options []string
	New     func(o MetricOptions) (MetricFunc, error)
}

// Aggregation folds a metric's per-document values into the task's score.
type Aggregation struct {
	Name string
	Fold func(values []float64) float64
}

var (
	filters      = map[string]Filter{}
	metrics      = map[string]Metric{}
	aggregations = map[string]Aggregation{}
)

func registerFilter(f Filter) {
	if _, dup := filters[f.Name]; dup {
		panic("hooks: filter " + f.Name + " registered twice")
	}
	filters[f.Name] = f
}

func registerMetric(m Metric) {
	if _, dup := metrics[m.Name]; dup {
		panic("hooks: metric " + m.Name + " registered twice")
	}
	metrics[m.Name] = m
}

func registerAggregation(a Aggregation) {
	if _, dup := aggregations[a.Name]; dup {
		panic("hooks: aggregation " + a.Name + " registered twice")
	}
	aggregations[a.Name] = a
}

// LookupFilter returns the registered filter called name.
func LookupFilter(name string) (Filter, bool) { f, ok := filters[name]; return f, ok }

// LookupMetric returns the registered metric called name.
func LookupMetric(name string) (Metric, bool) { m, ok := metrics[name]; return m, ok }

// LookupAggregation returns the registered aggregation called name.
func LookupAggregation(name string) (Aggregation, bool) { a, ok := aggregations[name]; return a, ok }

// FilterNames, MetricNames and AggregationNames list what is registered, sorted.
func FilterNames() []string      { return slices.Sorted(maps.Keys(filters)) }
func MetricNames() []string      { return slices.Sorted(maps.Keys(metrics)) }
func AggregationNames() []string { return slices.Sorted(maps.Keys(aggregations)) }

// NewFilter compiles one filter step, checking its arguments against the
// registered ones.
func NewFilter(name string, params map[string]any) (FilterFunc, error) {
	f, ok := filters[name]
	if !ok {
		return nil, fmt.Errorf("unknown filter function %q", name)
	}
	for k := range params {
		if !slices.Contains(f.Params, k) {
			return nil, fmt.Errorf("%s: argument %s is not supported", name, k)
		}
	}
	return f.New(params)
}

// mapEach applies f to every response (lm-eval's per-response filters).
func mapEach(f func(string) (string, error)) FilterFunc {
	return func(v Values, _ map[string]any) (Values, error) {
		out := Values{Items: make([]string, len(v.Items)), Single: v.Single}
		for i, s := range v.Items {
			r, err := f(s)
			if err != nil {
				return Values{}, err
			}
			out.Items[i] = r
		}
		return out, nil
	}
}
