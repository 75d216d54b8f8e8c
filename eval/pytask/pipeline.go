package pytask

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// pipeline is a filter_list entry cut into segments: runs of Go steps
// (package eval's filters, applied per doc) and single Python steps (a
// filter class or lm-eval's custom filter, applied to a batch of docs).
type pipeline struct {
	name     string
	segments []segment
}

type segment struct {
	goSteps  *eval.Pipeline // nil for a Python step
	hook     pyhooks.Hook
	args     map[string]any
	custom   bool // lm-eval's "custom" filter: filter_fn(resps, docs)
	registry bool // a filter lm-eval registers by name (hook.Function)
}

func compilePipeline(task *datasets.Task, index int, f datasets.FilterPipeline) (pipeline, error) {
	p := pipeline{name: f.Name}
	var run []datasets.FilterStep
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		gp, err := eval.CompilePipeline(datasets.FilterPipeline{Name: f.Name, Steps: run})
		if err != nil {
			return err
		}
		p.segments, run = append(p.segments, segment{goSteps: gp}), nil
		return nil
	}
	for j, st := range f.Steps {
		key := fmt.Sprintf("filter_list[%d].filter[%d].", index, j)
		h, isClass := task.Hook(key + "function")
		hf, isCustom := task.Hook(key + "filter_fn")
		if !isClass && !isCustom {
			run = append(run, st)
			continue
		}
		if err := flush(); err != nil {
			return pipeline{}, err
		}
		args := pythonArgs(st.Params)
		if isCustom {
			h = hf
		}
		p.segments = append(p.segments, segment{hook: pyhooks.Hook{File: h.File, Function: h.Function}, args: args, custom: isCustom,
			registry: h.Kind == "registry_filter"})
	}
	return p, flush()
}

// value is one doc's responses as they flow through a pipeline.
type value struct {
	items  []string
	single bool
	raw    json.RawMessage // set after a Python step: what it returned
}

// apply runs the pipeline for a batch of docs and returns each doc's
// filtered value as JSON (a string once reduced, else a list).
func (p pipeline) apply(ctx context.Context, b *pyhooks.Bridge, task string, docs []Doc, encoded [][]byte, ids []int, responses [][]string) ([]json.RawMessage, error) {
	vals := make([]value, len(docs))
	for i, r := range responses {
		vals[i] = value{items: r}
	}
	for _, seg := range p.segments {
		if seg.goSteps != nil {
			for i := range vals {
				if vals[i].raw != nil {
					if err := vals[i].fromRaw(); err != nil {
						return nil, fmt.Errorf("task %s: filter %s on doc %d: %w", task, p.name, ids[i], err)
					}
				}
				if vals[i].single {
					return nil, fmt.Errorf("task %s: filter %s: a Go step after a step that reduced the responses to one value is not supported", task, p.name)
				}
				items, single, err := seg.goSteps.Apply(vals[i].items, docs[i].Doc)
				if err != nil {
					return nil, fmt.Errorf("task %s: doc %d: %w", task, ids[i], err)
				}
				vals[i] = value{items: items, single: single}
			}
			continue
		}
		items := make([]pyhooks.FilterItem, len(vals))
		for i := range vals {
			items[i] = pyhooks.FilterItem{Resps: vals[i].json(), Doc: encoded[i]}
		}
		call := pyhooks.Call{Task: task, Kind: "filter", Hook: seg.hook, Docs: ids}
		var out []json.RawMessage
		var err error
		switch {
		case seg.custom:
			out, err = b.CustomFilter(ctx, call, items)
		case seg.registry:
			out, err = b.RegistryFilter(ctx, call, seg.args, items)
		default:
			out, err = b.Filter(ctx, call, seg.args, items)
		}
		if err != nil {
			return nil, err
		}
		for i := range vals {
			vals[i] = value{raw: out[i]}
		}
	}
	out := make([]json.RawMessage, len(vals))
	for i := range vals {
		out[i] = vals[i].json()
	}
	return out, nil
}

// json is the value as lm-eval holds it: a str once reduced, else a list.
func (v value) json() json.RawMessage {
	if v.raw != nil {
		return v.raw
	}
	var b []byte
	if v.single && len(v.items) == 1 {
		b, _ = json.Marshal(v.items[0])
	} else {
		b, _ = json.Marshal(v.items)
	}
	return b
}

// fromRaw reads a Python step's output back into strings for Go steps.
func (v *value) fromRaw() error {
	var list []string
	if err := json.Unmarshal(v.raw, &list); err == nil {
		*v = value{items: list}
		return nil
	}
	var s string
	if err := json.Unmarshal(v.raw, &s); err != nil {
		return fmt.Errorf("a Python filter returned %.80s; Go filter steps take strings", strings.TrimSpace(string(v.raw)))
	}
	*v = value{items: []string{s}, single: true}
	return nil
}
