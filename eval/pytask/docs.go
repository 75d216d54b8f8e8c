package pytask

import (
	"context"
	"fmt"
	"strconv"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// The prompt side of a task with Python hooks: process_docs over a split and
// the doc_to_text / doc_to_target / doc_to_choice hooks over docs. Which
// splits are processed in which order (lm-eval processes the few-shot pool
// before the evaluated split, which matters to hooks drawing from the global
// random module) is the caller's: this runs one call as asked.

// ProcessDocs runs the task's process_docs hook over one split's problems
// and returns the docs it gives back, in its order, numbered from 0 (the doc
// ids of the processed split, as in lm-eval). A problem keeps its source
// file; its row is kept only when the hook kept every row in place, else -1.
func ProcessDocs(ctx context.Context, b *pyhooks.Bridge, task *datasets.Task, key string, split []datasets.Problem) ([]datasets.Problem, error) {
	h, ok := task.Hook(key)
	if !ok || h.Kind != "process_docs" {
		return nil, fmt.Errorf("task %s has no process_docs hook at %s", task.Name, key)
	}
	var columns []string
	rows := make([][]byte, len(split))
	for i, p := range split {
		if i == 0 {
			columns = p.Columns.Names()
		}
		var err error
		if rows[i], err = datasets.EncodeDoc(p.Doc, p.Columns); err != nil {
			return nil, fmt.Errorf("task %s: problem %s: %w", task.Name, p.ID, err)
		}
	}
	out, cols, err := b.ProcessDocs(ctx, pyhooks.Call{Task: task.Name, Kind: "process_docs", Hook: pyhooks.Hook{File: h.File, Function: h.Function}}, columns, rows)
	if err != nil {
		return nil, err
	}
	fields := datasets.FieldsOf(cols...)
	probs := make([]datasets.Problem, len(out))
	for i, raw := range out {
		doc, err := datasets.DecodeDoc(raw)
		if err != nil {
			return nil, fmt.Errorf("task %s: process_docs row %d: %w", task.Name, i, err)
		}
		p := datasets.Problem{ID: strconv.Itoa(i), Index: i, Doc: doc, Columns: fields, Row: -1}
		if len(split) > 0 {
			p.Source = split[0].Source
		}
		if len(out) == len(split) {
			p.Source, p.Row = split[i].Source, split[i].Row
		}
		probs[i] = p
	}
	return probs, nil
}

// DocTo runs the task's hook at key (doc_to_text, doc_to_target,
// doc_to_choice, or their fewshot_config forms) on each doc and returns the
// values as Python returned them: strings, ints, lists.
func DocTo(ctx context.Context, b *pyhooks.Bridge, task *datasets.Task, key string, docs []datasets.Problem) ([]any, error) {
	h, ok := task.Hook(key)
	if !ok {
		return nil, fmt.Errorf("task %s has no Python hook at %s", task.Name, key)
	}
	rows := make([][]byte, len(docs))
	ids := make([]int, len(docs))
	for i, p := range docs {
		var err error
		if rows[i], err = datasets.EncodeDoc(p.Doc, p.Columns); err != nil {
			return nil, fmt.Errorf("task %s: problem %s: %w", task.Name, p.ID, err)
		}
		ids[i] = p.Index
	}
	out, err := b.DocTo(ctx, pyhooks.Call{Task: task.Name, Kind: h.Kind, Hook: pyhooks.Hook{File: h.File, Function: h.Function}, Docs: ids}, rows)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(out))
	for i, raw := range out {
		if vals[i], err = pyjson.Decode(raw); err != nil {
			return nil, fmt.Errorf("task %s: %s on doc %d: %w", task.Name, key, ids[i], err)
		}
	}
	return vals, nil
}
