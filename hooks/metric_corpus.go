package hooks

import (
	"maps"
	"slices"

	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// CorpusMetric is a metric_list metric lm-eval computes over the whole
// corpus, not per document: its metric function passes [reference,
// response] through, and its aggregation of the same name does the work
// (api/metrics.py's bleu, chrf and ter). Such a score has no per-document
// value, so it has no paired test; its standard error is lm-eval's
// bootstrap (evaluator_utils caps these three at 100 resamples).
type CorpusMetric struct {
	Name string
	// HigherIsBetter is lm-eval's registered direction. lm-eval registers
	// ter as higher-is-better too (an error rate: lower is better), and the
	// results files repeat what lm-eval writes.
	HigherIsBetter bool
	// MaxBootstrapIters caps the bootstrap resamples of the standard error.
	MaxBootstrapIters int
	Fold              func(items []textmetrics.Item) (float64, error)
}

var corpusMetrics = map[string]CorpusMetric{}

func registerCorpusMetric(m CorpusMetric) {
	if _, dup := corpusMetrics[m.Name]; dup {
		panic("hooks: corpus metric " + m.Name + " registered twice")
	}
	corpusMetrics[m.Name] = m
}

// LookupCorpusMetric returns the corpus metric (and aggregation) called name.
func LookupCorpusMetric(name string) (CorpusMetric, bool) {
	m, ok := corpusMetrics[name]
	return m, ok
}

// CorpusMetricNames lists the corpus metrics, sorted.
func CorpusMetricNames() []string { return slices.Sorted(maps.Keys(corpusMetrics)) }

func init() {
	registerCorpusMetric(CorpusMetric{Name: "bleu", HigherIsBetter: true, MaxBootstrapIters: 100, Fold: textmetrics.LMEvalBLEU})
	registerCorpusMetric(CorpusMetric{Name: "chrf", HigherIsBetter: true, MaxBootstrapIters: 100, Fold: textmetrics.LMEvalCHRF})
	registerCorpusMetric(CorpusMetric{Name: "ter", HigherIsBetter: true, MaxBootstrapIters: 100, Fold: textmetrics.LMEvalTER})
}
