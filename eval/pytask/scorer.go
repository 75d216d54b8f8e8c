package pytask

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// Doc is one evaluated doc: its id, the processed row with its column
// order, and the target lm-eval's default metrics compare with.
type Doc struct {
	ID      int
	Doc     datasets.Doc
	Columns datasets.Fields
	Target  string
}

// DocResult is what one doc's responses gave under each filter pipeline:
// the filtered value handed to scoring (a string, or a list when the
// pipeline keeps one) and the metric values as Python returned them.
type DocResult struct {
	ID       int
	Filtered map[string]json.RawMessage
	// Metrics are per filter, in the order process_results returned them
	// (metric_list order for the metrics scored here).
	Metrics map[string]*pyjson.Dict
}

// Scorer scores one task through the bridge. BatchSize bounds the docs per
// bridge call (lm-eval passes a filter the whole task at once; a batch is a
// slice of it).
type Scorer struct {
	bridge    *pyhooks.Bridge
	task      *datasets.Task
	pipelines []pipeline
	results   *pyhooks.Hook // process_results
	BatchSize int
}

// New prepares the task's filters and scoring for the bridge.
func New(b *pyhooks.Bridge, task *datasets.Task) (*Scorer, error) {
	s := &Scorer{bridge: b, task: task, BatchSize: 256}
	for i, f := range task.Filters {
		p, err := compilePipeline(task, i, f)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		s.pipelines = append(s.pipelines, p)
	}
	if h, ok := task.Hook("process_results"); ok {
		s.results = &pyhooks.Hook{File: h.File, Function: h.Function}
	} else {
		for _, m := range task.Metrics {
			if err := checkMetric(task, m); err != nil {
				return nil, fmt.Errorf("task %s: %w", task.Name, err)
			}
		}
	}
	return s, nil
}

// Score filters and scores each doc's responses (its repeats, in order). On
// an error it returns the docs scored before the failing batch, so a caller
// that records them can resume there.
func (s *Scorer) Score(ctx context.Context, docs []Doc, responses [][]string) ([]DocResult, error) {
	if len(docs) != len(responses) {
		return nil, fmt.Errorf("task %s: %d docs, %d response lists", s.task.Name, len(docs), len(responses))
	}
	var out []DocResult
	for start := 0; start < len(docs); start += max(s.BatchSize, 1) {
		end := min(start+max(s.BatchSize, 1), len(docs))
		batch, err := s.scoreBatch(ctx, docs[start:end], responses[start:end])
		if err != nil {
			return out, err
		}
		out = append(out, batch...)
	}
	return out, nil
}

func (s *Scorer) scoreBatch(ctx context.Context, docs []Doc, responses [][]string) ([]DocResult, error) {
	out := make([]DocResult, len(docs))
	encoded := make([][]byte, len(docs))
	ids := make([]int, len(docs))
	for i, d := range docs {
		out[i] = DocResult{ID: d.ID, Filtered: map[string]json.RawMessage{}, Metrics: map[string]*pyjson.Dict{}}
		b, err := datasets.EncodeDoc(d.Doc, d.Columns)
		if err != nil {
			return nil, fmt.Errorf("task %s: doc %d: %w", s.task.Name, d.ID, err)
		}
		encoded[i], ids[i] = b, d.ID
	}
	for _, p := range s.pipelines {
		filtered, err := p.apply(ctx, s.bridge, s.task.Name, docs, encoded, ids, responses)
		if err != nil {
			return nil, err
		}
		var metrics []*pyjson.Dict
		if s.results != nil {
			metrics, err = s.processResults(ctx, encoded, ids, filtered)
		} else {
			metrics, err = s.metrics(ctx, docs, ids, filtered)
		}
		if err != nil {
			return nil, err
		}
		for i := range docs {
			out[i].Filtered[p.name], out[i].Metrics[p.name] = filtered[i], metrics[i]
		}
	}
	return out, nil
}

// processResults calls process_results(doc, [filtered]) per doc.
func (s *Scorer) processResults(ctx context.Context, encoded [][]byte, ids []int, filtered []json.RawMessage) ([]*pyjson.Dict, error) {
	items := make([]pyhooks.ResultsItem, len(encoded))
	for i := range encoded {
		items[i] = pyhooks.ResultsItem{Doc: encoded[i], Results: append(append([]byte("["), filtered[i]...), ']')}
	}
	raw, err := s.bridge.ProcessResults(ctx, pyhooks.Call{Task: s.task.Name, Kind: "process_results", Hook: *s.results, Docs: ids}, items)
	if err != nil {
		return nil, err
	}
	out := make([]*pyjson.Dict, len(raw))
	for i, r := range raw {
		v, err := pyjson.Decode(r)
		d, ok := v.(*pyjson.Dict)
		if err != nil || !ok {
			return nil, fmt.Errorf("task %s: process_results on doc %d returned %.100s, not a dict", s.task.Name, ids[i], r)
		}
		for _, m := range s.task.Metrics {
			if _, ok := d.Get(m.Metric); !ok {
				return nil, fmt.Errorf("task %s: process_results on doc %d returned no %s (metric_list names it; it returned %s)",
					s.task.Name, ids[i], m.Metric, strings.Join(d.Keys(), ", "))
			}
		}
		out[i] = d
	}
	return out, nil
}
