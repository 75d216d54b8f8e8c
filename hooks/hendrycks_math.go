package hooks

// hendrycks_math (7 subjects, and hendrycks_math500 which includes them):
// lm_eval/tasks/hendrycks_math/utils.py.

import "fmt"

var hendrycksMathSources = []Source{{"hendrycks_math", "8332e42f23c62043b23d74ee6d3934f997b209cd60a1ad45b7882d6b00929d5c"}}

func init() {
	registerPort(Port{Function: "process_docs", Sources: hendrycksMathSources, Docs: hendrycksProcessDocs})
	registerPort(Port{Function: "process_results", Sources: hendrycksMathSources, Results: hendrycksProcessResults,
		IntResults: []string{"exact_match"}})
}

// boxedAnswer is remove_boxed(last_boxed_only_string(solution)), failing
// where Python raises (no \boxed at all gives remove_boxed(None)).
func boxedAnswer(doc map[string]any) (string, error) {
	sol, ok := doc["solution"].(string)
	if !ok {
		return "", fmt.Errorf("solution: want a string, got %T", doc["solution"])
	}
	boxed, ok := lastBoxedOnlyString(sol)
	if !ok {
		return "", fmt.Errorf("solution has no \\boxed{...} or \\fbox{...} (Python: TypeError in remove_boxed(None))")
	}
	a, err := removeBoxed(boxed)
	if err != nil {
		return "", fmt.Errorf("solution's last box %q: remove_boxed raises AssertionError", clip(boxed, 40))
	}
	return a, nil
}

// hendrycksProcessDocs maps each row to problem, solution and answer (the
// boxed answer of the solution), keeping the other columns.
func hendrycksProcessDocs(in Rows, _ DocsEnv) (Rows, error) {
	out := Rows{Docs: make([]map[string]any, len(in.Docs)), Columns: appendNew(in.Columns, "problem", "solution", "answer")}
	for i, d := range in.Docs {
		a, err := boxedAnswer(d)
		if err != nil {
			return Rows{}, fmt.Errorf("hendrycks_math process_docs: row %d: %w", i, err)
		}
		nd := cloneDoc(d)
		nd["problem"], nd["solution"], nd["answer"] = d["problem"], d["solution"], a
		out.Docs[i] = nd
	}
	return out, nil
}

// hendrycksProcessResults: exact_match is is_equiv of the response's $...$
// span (or the whole response) and the solution's boxed answer. The response
// is not searched for \boxed.
func hendrycksProcessResults(doc map[string]any, _ []string, response string) ([]Result, error) {
	gold, err := boxedAnswer(doc)
	if err != nil {
		return nil, fmt.Errorf("hendrycks_math process_results: %w", err)
	}
	return []Result{{"exact_match", b2f(isEquiv(dollarSpan(response), gold))}}, nil
}

func cloneDoc(d map[string]any) map[string]any {
	nd := make(map[string]any, len(d)+3)
	for k, v := range d {
		nd[k] = v
	}
	return nd
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
