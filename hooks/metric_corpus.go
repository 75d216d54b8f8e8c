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
	// Statistic is the metric as per-doc sufficient statistics and the
	// score of their sum (sacrebleu's own decomposition): a resample or a
	// paired test re-scores sums, not text.
	Statistic textmetrics.CorpusStatistic
}

// Fold is lm-eval's aggregation over the corpus: the score of the summed
// statistics (equal to textmetrics.LMEvalBLEU and the others).
func (m CorpusMetric) Fold(items []textmetrics.Item) (float64, error) {
	segs, err := m.Statistic.Segments(items)
	if err != nil {
		return 0, err
	}
	return m.Statistic.Score(textmetrics.Sum(segs)), nil
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
	for _, name := range []string{"bleu", "chrf", "ter"} {
		st, _ := textmetrics.LMEvalStatistic(name)
		registerCorpusMetric(CorpusMetric{Name: name, HigherIsBetter: true, MaxBootstrapIters: 100, Statistic: st})
	}
}
