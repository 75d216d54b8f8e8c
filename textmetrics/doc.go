// Package textmetrics computes the text metrics lm-eval's generate_until
// tasks share, natively and equal to the reference implementations lm-eval
// calls: corpus BLEU and chrF as sacrebleu computes them (lm-eval's "bleu"
// and "chrf" aggregations call sacrebleu.corpus_bleu / corpus_chrf with their
// defaults, "ter" corpus_ter), and the SQuAD token F1 and exact match of
// transformers.data.metrics.squad_metrics, which lm-eval's QA hooks call.
//
// Strings are handled as Python handles str: by code point, with Python's
// whitespace (str.split, str.rstrip) and ASCII-only [0-9] in the regexes.
package textmetrics
