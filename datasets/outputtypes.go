package datasets

import (
	"fmt"
	"slices"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// Output types of lm-eval tasks (output_type). The three besides
// generate_until score given continuations by their log-likelihood; package
// eval/loglik computes them.
const (
	OutputGenerateUntil  = "generate_until"
	OutputMultipleChoice = "multiple_choice"
	OutputLoglikelihood  = "loglikelihood"
	OutputRolling        = "loglikelihood_rolling"
)

// IsScoredOutput says whether an output type scores continuations by their
// log-likelihood rather than generating.
func IsScoredOutput(t string) bool {
	return t == OutputMultipleChoice || t == OutputLoglikelihood || t == OutputRolling
}

// Aggregations of the scored output types' metrics, as lm-eval's registry
// names them.
const (
	AggMean               = "mean"
	AggPerplexity         = "perplexity"
	AggWeightedPerplexity = "weighted_perplexity"
	AggBitsPerByte        = "bits_per_byte"
	AggBrierScore         = "brier_score"
)

// ScoreMetric is a metric lm-eval registers for the scored output types
// (api/metrics.py): how it aggregates, which way is better, which output
// types' process_results produce it, and, for a weighted aggregation, what
// weighs a doc ("words" or "bytes" of doc_to_target).
type ScoreMetric struct {
	Aggregation    string
	HigherIsBetter bool
	OutputTypes    []string
	Weight         string
}

// ScoreMetrics are the metrics this harness computes for the scored output
// types. (f1, mcc and likelihood, which aggregate tuples with scikit-learn or
// keep them raw, are not among them.)
var ScoreMetrics = map[string]ScoreMetric{
	"acc":             {AggMean, true, []string{OutputLoglikelihood, OutputMultipleChoice}, ""},
	"acc_norm":        {AggMean, true, []string{OutputMultipleChoice}, ""},
	"acc_bytes":       {AggMean, true, []string{OutputMultipleChoice}, ""},
	"acc_mutual_info": {AggMean, true, []string{OutputMultipleChoice}, ""},
	"exact_match":     {AggMean, true, []string{OutputMultipleChoice}, ""},
	"brier_score":     {AggBrierScore, false, []string{OutputMultipleChoice}, ""},
	"perplexity":      {AggPerplexity, false, []string{OutputLoglikelihood}, ""},
	"word_perplexity": {AggWeightedPerplexity, false, []string{OutputRolling}, "words"},
	"byte_perplexity": {AggWeightedPerplexity, false, []string{OutputRolling}, "bytes"},
	"bits_per_byte":   {AggBitsPerByte, false, []string{OutputRolling}, "bytes"},
}

// DefaultScoreMetrics are lm-eval's DEFAULT_METRIC_REGISTRY for the scored
// output types: a task without a metric_list scores these.
var DefaultScoreMetrics = map[string][]string{
	OutputLoglikelihood:  {"perplexity", "acc"},
	OutputRolling:        {"word_perplexity", "byte_perplexity", "bits_per_byte"},
	OutputMultipleChoice: {"acc", "acc_norm"},
}

// CheckScoreMetric says whether metric can score outputType, naming the
// metrics that can.
func CheckScoreMetric(outputType, metric string) error {
	if m, ok := ScoreMetrics[metric]; ok && slices.Contains(m.OutputTypes, outputType) {
		return nil
	}
	var can []string
	for name, m := range ScoreMetrics {
		if slices.Contains(m.OutputTypes, outputType) {
			can = append(can, name)
		}
	}
	slices.Sort(can)
	return fmt.Errorf("metric %q is not computed for output_type %s (supported: %v)", metric, outputType, can)
}

// scoreMetrics reads metric_list for a scored output type: each entry's
// metric must be one the type computes, its aggregation and
// higher_is_better, when given, lm-eval's own for it.
func (g *getter) scoreMetrics(outputType string) []MetricSpec {
	spec := func(name string) MetricSpec {
		m := ScoreMetrics[name]
		return MetricSpec{Metric: name, Aggregation: m.Aggregation, HigherIsBetter: m.HigherIsBetter}
	}
	v, ok := g.rc.Keys["metric_list"]
	if !ok || v == nil {
		var out []MetricSpec
		for _, name := range DefaultScoreMetrics[outputType] {
			out = append(out, spec(name))
		}
		return out
	}
	list, ok := v.([]any)
	if !ok {
		g.fail("metric_list", "want a list of {metric, ...}")
		return nil
	}
	var out []MetricSpec
	for i, e := range list {
		m, _ := e.(map[string]any)
		name, _ := m["metric"].(string)
		if err := CheckScoreMetric(outputType, name); err != nil {
			g.fail("metric_list", "entry %d: %v", i, err)
			return nil
		}
		ms := spec(name)
		for _, key := range sortedKeys(m) {
			switch key {
			case "metric":
			case "aggregation":
				if a, _ := m[key].(string); a != ms.Aggregation {
					g.fail("metric_list", "%s: aggregation %v: only lm-eval's %s is supported", name, m[key], ms.Aggregation)
					return nil
				}
			case "higher_is_better":
				if b, ok := m[key].(bool); !ok || b != ms.HigherIsBetter {
					g.fail("metric_list", "%s: higher_is_better %v: lm-eval's is %v", name, m[key], ms.HigherIsBetter)
					return nil
				}
			default:
				g.fail("metric_list", "%s: option %s is not supported for output_type %s", name, key, outputType)
				return nil
			}
		}
		if slices.ContainsFunc(out, func(o MetricSpec) bool { return o.Metric == name }) {
			g.fail("metric_list", "%s is listed twice", name)
			return nil
		}
		out = append(out, ms)
	}
	return out
}

// choices reads doc_to_choice: a YAML list of choices, or a template.
func (g *getter) choices() ([]string, *Template) {
	switch x := g.rc.Keys["doc_to_choice"].(type) {
	case []any:
		out := make([]string, len(x))
		for i, c := range x {
			out[i] = hooks.PyStr(c)
		}
		return out, nil
	case map[string]any:
		g.fail("doc_to_choice", "a mapping of choices is not supported; write a list")
		return nil, nil
	}
	return nil, g.template("doc_to_choice", "")
}
