// Package pytask runs the parts of a task that are Python hooks
// (--python-hooks) through the bridge, as lm-eval does. Prompt side:
// process_docs over a split and doc_to_text / doc_to_target / doc_to_choice
// over docs. Scoring side (Scorer): filter pipelines mixing Go steps and
// Python filter classes, process_results per doc with its metric dict kept
// as Python returned it (IFEval's lists of booleans included), then each
// metric aggregated over the docs by its metric_list aggregation — mean,
// nanmean, a Python function, or the corpus BLEU, chrF and TER of package
// textmetrics over lm-eval's (reference, response) pairs.
package pytask
