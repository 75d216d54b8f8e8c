// Package pyscore scores a task whose filters, process_results, metrics or
// aggregations are Python hooks (--python-hooks), as lm-eval does: filter
// pipelines mixing Go steps and Python filter classes, process_results per
// doc with its metric dict kept as Python returned it (IFEval's lists of
// booleans included), then each metric aggregated over the docs by its
// metric_list aggregation — mean, nanmean, a Python function, or the corpus
// BLEU and chrF of package textmetrics over lm-eval's (reference, response)
// pairs.
package pyscore
