package lmevalout

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/reports"
)

// docLines groups samples.jsonl's lines (one per repeat) by doc, docs in
// first-appearance order and each doc's lines in repeat order: with repeats,
// lm-eval logs one sample per doc whose resps hold every repeat's response.
func docLines(samples []map[string]any) [][]map[string]any {
	at := map[string]int{}
	var out [][]map[string]any
	for _, s := range samples {
		k := fmt.Sprint(s["doc_id"])
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	for _, lines := range out {
		slices.SortStableFunc(lines, func(a, b map[string]any) int {
			ra, _ := a["repeat"].(float64)
			rb, _ := b["repeat"].(float64)
			return cmp.Compare(ra, rb)
		})
	}
	return out
}

// responses are a doc's responses, one per repeat in repeat order.
func responses(lines []map[string]any) []string {
	out := make([]string, 0, len(lines))
	for _, s := range lines {
		var resp string
		if rs, ok := s["resps"].([]any); ok && len(rs) > 0 {
			if inner, ok := rs[0].([]any); ok && len(inner) > 0 {
				resp = fmt.Sprint(inner[0])
			}
		}
		out = append(out, resp)
	}
	return out
}

// docAnswer is the doc's filtered answer and metric values under filter f:
// lm-eval filters a doc's repeats together into one answer, so every repeat
// must carry the same (a filter ending in take_first or majority_vote).
func docAnswer(lines []map[string]any, f string, metrics []string) (string, map[string]any, error) {
	answer := func(s map[string]any) string {
		filtered, _ := s["filtered_resps"].(map[string]any)
		return fmt.Sprint(filtered[f])
	}
	want := answer(lines[0])
	values := map[string]any{}
	for _, m := range metrics {
		values[m] = lines[0][m+","+f]
	}
	for _, s := range lines[1:] {
		if answer(s) != want {
			return "", nil, fmt.Errorf("%w: doc %v: filter %s leaves one answer per repeat, and lm-eval's files hold one per doc", ErrNotWritten, s["doc_id"], f)
		}
		for _, m := range metrics {
			if s[m+","+f] != values[m] {
				return "", nil, fmt.Errorf("%w: doc %v: %s,%s differs between repeats", ErrNotWritten, s["doc_id"], m, f)
			}
		}
	}
	return want, values, nil
}

// docResults are the (metric, filter) means and standard errors over docs,
// as lm-eval aggregates a repeated task's per-doc scores: eval.MeanSE's, the
// same as our results.json's, under eval.StderrKey ("N/A" for one doc).
func docResults(lines []*pyjson.Dict) map[string]any {
	type tally struct {
		sum, sumSq float64
		n          int
	}
	tallies := map[reports.ScoreKey]*tally{}
	for _, l := range lines {
		fv, _ := l.Get("filter")
		mv, _ := l.Get("metrics")
		f, _ := fv.(string)
		ms, _ := mv.([]string)
		for _, m := range ms {
			vv, _ := l.Get(m)
			v, ok := vv.(float64)
			if !ok {
				continue
			}
			k := reports.KeyOf(m, f)
			t := tallies[k]
			if t == nil {
				t = &tally{}
				tallies[k] = t
			}
			t.sum, t.sumSq, t.n = t.sum+v, t.sumSq+v*v, t.n+1
		}
	}
	out := map[string]any{}
	for k, t := range tallies {
		mean, se := eval.MeanSE(t.sum, t.sumSq, t.n)
		out[string(k)], out[k.Stderr()] = mean, se
		if math.IsNaN(se) {
			out[k.Stderr()] = "N/A"
		}
	}
	return out
}
