// Package pyhooks runs lm-eval task hooks that have no Go port in the
// user's own Python: one long-lived interpreter per run executes bridge.py
// (embedded in the binary), which imports each hook's module from its task
// folder as lm-eval's YAML loader does and answers batched JSON-lines
// requests: process_docs, doc_to_text/target/choice, filter classes,
// process_results, metric and aggregation functions.
//
// It is opt-in (entropix-eval's --python-hooks): it runs code from task
// folders. Every call has a time bound and the interpreter a memory bound
// (RLIMIT_AS); a hook's exception comes back as an error naming the task,
// the hook, the doc and the traceback's last lines. A hung or crashed
// interpreter is killed and the next call starts a fresh one, so a caller
// that records what it has done can resume. docs/python-hooks.md describes
// the protocol and the datasets stand-in.
package pyhooks
