package pytask

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sync"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// Runner runs a run's Python hooks over a bridge: the prompt side
// (datasets.PythonRunner) and the grading side (eval.PythonHooks). Before a
// hook file is first used, its SHA-256 is checked against the one the task
// recorded (a rescore reads it from the manifest): a changed hook never
// grades an old run.
type Runner struct {
	Ctx    context.Context
	Bridge *pyhooks.Bridge
	hashes *sync.Map // file -> error (nil: it matched)
}

// NewRunner is a Runner over b.
func NewRunner(ctx context.Context, b *pyhooks.Bridge) Runner {
	return Runner{Ctx: ctx, Bridge: b, hashes: &sync.Map{}}
}

// verify checks h's file against the hash the task recorded.
func (r Runner) verify(h datasets.PythonHook) error {
	if h.File == "" || h.SHA256 == "" || r.hashes == nil {
		return nil
	}
	if err, ok := r.hashes.Load(h.File); ok {
		if err != nil {
			return err.(error)
		}
		return nil
	}
	now, err := (pyhooks.Hook{File: h.File}).SHA256()
	if err == nil && now != h.SHA256 {
		err = fmt.Errorf("python hook %s: %s changed since the task was built (sha256 %s, now %s); a changed hook does not grade an old run",
			h.Function, h.File, h.SHA256, now)
	}
	var stored any
	if err != nil {
		stored = err
	}
	r.hashes.Store(h.File, stored)
	return err
}

var _ datasets.PythonRunner = Runner{}

// ProcessDocs runs a process_docs hook on one split's rows. A hook that
// drops rows leaves no trace of which input row each output came from: the
// rows keep their positions as provenance (Source), which is then only
// approximate; one that adds rows is refused.
func (r Runner) ProcessDocs(task string, h datasets.PythonHook, in hooks.Rows) (hooks.Rows, error) {
	if err := r.verify(h); err != nil {
		return hooks.Rows{}, err
	}
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
	if err := r.verify(h); err != nil {
		return "", err
	}
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

var _ eval.PythonHooks = Runner{}

// ProcessResults runs a process_results hook on one filtered response for
// run's and score's grader. The report averages one number per metric: a
// list-valued metric (IFEval's instruction-level ones) is refused, named.
func (r Runner) ProcessResults(task string, h datasets.PythonHook, doc map[string]any, columns []string, response string) ([]hooks.Result, error) {
	if err := r.verify(h); err != nil {
		return nil, err
	}
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

// Filter is a Python filter step for run's and score's grader: a filter
// class, lm-eval's custom filter_fn, or a filter lm-eval registers by name,
// applied to one doc's responses at a time.
func (r Runner) Filter(task string, h datasets.PythonHook, params map[string]any) (hooks.FilterFunc, error) {
	if err := r.verify(h); err != nil {
		return nil, err
	}
	hook := pyhooks.Hook{File: h.File, Function: h.Function}
	params = pythonArgs(params)
	return func(v hooks.Values, doc map[string]any) (hooks.Values, error) {
		var resps []byte
		var err error
		if v.Single && len(v.Items) == 1 {
			resps, err = json.Marshal(v.Items[0])
		} else {
			resps, err = json.Marshal(v.Items)
		}
		if err != nil {
			return hooks.Values{}, err
		}
		d, err := datasets.EncodeDoc(doc, nil)
		if err != nil {
			return hooks.Values{}, err
		}
		items := []pyhooks.FilterItem{{Resps: resps, Doc: d}}
		call := pyhooks.Call{Task: task, Kind: "filter", Hook: hook}
		var out []json.RawMessage
		switch h.Kind {
		case "filter_fn":
			out, err = r.Bridge.CustomFilter(r.Ctx, call, items)
		case "registry_filter":
			out, err = r.Bridge.RegistryFilter(r.Ctx, call, params, items)
		default:
			out, err = r.Bridge.Filter(r.Ctx, call, params, items)
		}
		if err != nil {
			return hooks.Values{}, err
		}
		var list []string
		if json.Unmarshal(out[0], &list) == nil {
			return hooks.Values{Items: list}, nil
		}
		var one string
		if err := json.Unmarshal(out[0], &one); err != nil {
			return hooks.Values{}, fmt.Errorf("filter %s returned %.80s; the steps after it take strings", h.Function, out[0])
		}
		return hooks.Values{Items: []string{one}, Single: true}, nil
	}, nil
}

// Metric is a Python metric function for run's and score's grader, called
// as lm-eval's generate_until scoring calls it; its value must be a number.
func (r Runner) Metric(task string, h datasets.PythonHook, args map[string]any) (hooks.MetricFunc, error) {
	if err := r.verify(h); err != nil {
		return nil, err
	}
	hook := pyhooks.Hook{File: h.File, Function: h.Function}
	return func(prediction, reference string) (float64, error) {
		gold, _ := json.Marshal(reference)
		pred, _ := json.Marshal(prediction)
		out, err := r.Bridge.Metric(r.Ctx, pyhooks.Call{Task: task, Kind: "metric", Hook: hook}, args, []pyhooks.MetricItem{{Gold: gold, Result: pred}})
		if err != nil {
			return 0, err
		}
		v, err := pyjson.Decode(out[0])
		if err != nil {
			return 0, err
		}
		if d, ok := v.(*pyjson.Dict); ok { // HF evaluate's style: {name: value}
			v, _ = d.Get(d.Keys()[0])
		}
		f, err := number(v)
		if err != nil {
			return 0, fmt.Errorf("metric %s: %w", h.Function, err)
		}
		return f, nil
	}, nil
}

// pythonArgs are a filter step's YAML arguments for Python: the task loader
// keeps regex_pattern_to_value as [key, value] pairs in file order (its
// order matters to MapRegexFilter); Python gets the dict back in that order.
//
// The manifest keeps a task's filters as JSON, which reads every number back
// as a float: an integral one goes to Python as an int (group_select: -1
// indexes a list), so a YAML float written as 2.0 reaches Python as 2.
func pythonArgs(params map[string]any) map[string]any {
	params = maps.Clone(params)
	for k, v := range params {
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			params[k] = int64(f)
		}
	}
	pairs, ok := params["regex_pattern_to_value"].([]any)
	if !ok {
		return params
	}
	d := pyjson.NewDict()
	for _, p := range pairs {
		kv, ok := p.([]any)
		if !ok || len(kv) != 2 {
			return params
		}
		k, ok := kv[0].(string)
		if !ok {
			return params
		}
		d.Set(k, kv[1])
	}
	params["regex_pattern_to_value"] = d
	return params
}
