package hooks

import "slices"

// passthroughMetrics are lm-eval's registered metric functions that return
// their input (api/metrics.py: `def acc_fn(items): return items`). On a
// generate_until task lm-eval calls them with [gold, result], so that pair
// is the per-doc value and the aggregation does the work: a corpus metric
// (bleu, chrf, ter) or a task's Python aggregation (afrobench's acc with
// utils.acc_score).
var passthroughMetrics = []string{"acc", "acc_norm", "acc_mutual_info", "acc_bytes", "brier_score", "perplexity", "likelihood",
	"word_perplexity", "byte_perplexity", "bits_per_byte", "mcc", "f1", "bleu", "chrf", "ter"}

// IsPassthroughMetric says whether lm-eval's metric of that name returns its input.
func IsPassthroughMetric(name string) bool { return slices.Contains(passthroughMetrics, name) }
