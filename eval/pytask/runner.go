package pytask

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// Runner is datasets.PythonRunner over a bridge: the prompt side of a run's
// Python hooks.
type Runner struct {
	Ctx    context.Context
	Bridge *pyhooks.Bridge
}

var _ datasets.PythonRunner = Runner{}

// ProcessDocs runs a process_docs hook on one split's rows. A hook that
// drops rows leaves no trace of which input row each output came from: the
// rows keep their positions as provenance (Source), which is then only
// approximate; one that adds rows is refused.
func (r Runner) ProcessDocs(task string, h datasets.PythonHook, in hooks.Rows) (hooks.Rows, error) {
	fields := datasets.FieldsOf(in.Columns...)
	rows := make([][]byte, len(in.Docs))
	for i, d := range in.Docs {
		var err error
		if rows[i], err = datasets.EncodeDoc(d, fields); err != nil {
			return hooks.Rows{}, fmt.Errorf("row %d: %w", i, err)
		}
	}
	out, cols, err := r.Bridge.ProcessDocs(r.Ctx, pyhooks.Call{Task: task, Kind: "process_docs", Hook: pyhooks.Hook{File: h.File, Function: h.Function}}, in.Columns, rows)
	if err != nil {
		return hooks.Rows{}, err
	}
	if len(out) > len(in.Docs) {
		return hooks.Rows{}, fmt.Errorf("process_docs %s returned %d rows for %d: a hook that adds rows is not supported", h.Function, len(out), len(in.Docs))
	}
	res := hooks.Rows{Columns: cols, Docs: make([]map[string]any, len(out))}
	for i, raw := range out {
		if res.Docs[i], err = datasets.DecodeDoc(raw); err != nil {
			return hooks.Rows{}, fmt.Errorf("process_docs row %d: %w", i, err)
		}
	}
	return res, nil
}

// Text runs a doc_to_text or doc_to_target hook on one doc; a value that is
// not a string is written as Python's str() writes it.
func (r Runner) Text(task string, h datasets.PythonHook, doc datasets.Doc) (string, error) {
	b, err := datasets.EncodeDoc(doc, nil)
	if err != nil {
		return "", err
	}
	out, err := r.Bridge.DocTo(r.Ctx, pyhooks.Call{Task: task, Kind: h.Kind, Hook: pyhooks.Hook{File: h.File, Function: h.Function}}, [][]byte{b})
	if err != nil {
		return "", err
	}
	v, err := pyjson.Decode(out[0])
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number: // an int stays an int in str()
		if i, err := x.Int64(); err == nil {
			return hooks.PyStr(i), nil
		}
		f, _ := x.Float64()
		return hooks.PyStr(f), nil
	}
	return hooks.PyStr(v), nil
}

var _ eval.PythonResults = Runner{}

// ProcessResults runs a process_results hook on one filtered response for
// run's and score's grader. The report averages one number per metric: a
// list-valued metric (IFEval's instruction-level ones) is refused, named.
func (r Runner) ProcessResults(task string, h datasets.PythonHook, doc map[string]any, columns []string, response string) ([]hooks.Result, error) {
	d, err := datasets.EncodeDoc(doc, datasets.FieldsOf(columns...))
	if err != nil {
		return nil, err
	}
	res, err := json.Marshal([]string{response})
	if err != nil {
		return nil, err
	}
	out, err := r.Bridge.ProcessResults(r.Ctx, pyhooks.Call{Task: task, Kind: "process_results", Hook: pyhooks.Hook{File: h.File, Function: h.Function}},
		[]pyhooks.ResultsItem{{Doc: d, Results: res}})
	if err != nil {
		return nil, err
	}
	v, err := pyjson.Decode(out[0])
	dict, ok := v.(*pyjson.Dict)
	if err != nil || !ok {
		return nil, fmt.Errorf("process_results %s returned %.100s, not a dict", h.Function, out[0])
	}
	var results []hooks.Result
	for _, k := range dict.Keys() {
		val, _ := dict.Get(k)
		f, err := number(val)
		if err != nil {
			return nil, fmt.Errorf("process_results %s: metric %s: %w; run and score report one number per doc (eval/pytask.Scorer keeps such values)", h.Function, k, err)
		}
		results = append(results, hooks.Result{Metric: k, Value: f})
	}
	return results, nil
}
