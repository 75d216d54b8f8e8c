// Package hooks holds every function an lm-eval task file can name, in Go:
// the filters of filter_list, the metrics and aggregations of metric_list,
// and ports of the Python hooks some tasks load with `!function utils.NAME`
// (process_docs, doc_to_text, process_results, filter classes).
//
// Each function registers itself in the file that defines it (lm-eval's
// @register_filter pattern), and the task loader accepts exactly the names
// registered here: one list, so a filter the YAML loader accepts always has
// code behind it. A ported hook is keyed by its task folder, its function name
// and the SHA-256 of the utils.py it was ported from; a utils.py with any
// other hash is refused, so an upstream change never runs under an old port.
package hooks
