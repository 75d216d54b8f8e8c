package hooks

// aime24, aime25 and aime: process_results of lm_eval/tasks/aime/utils.py.

import (
	"fmt"
	"strings"
)

var aimeSources = []Source{{"aime", "e5072ebf08479745698bec6cfa103faa4f3ac5764db09bcbe760953227f9082b"}}

func init() {
	registerPort(Port{Function: "process_results", Sources: aimeSources, Results: aimeProcessResults,
		IntResults: []string{"exact_match"}})
}

// aimeProcessResults: the answer is the response's $...$ span (or the whole
// response), replaced by the content of its last \boxed{} when there is one
// that remove_boxed accepts; the target is str() of the doc's first column
// whose lower-cased name is "answer".
func aimeProcessResults(doc map[string]any, columns []string, response string) ([]Result, error) {
	answer := dollarSpan(response)
	if boxed, ok := lastBoxedOnlyString(response); ok {
		if c, err := removeBoxed(boxed); err == nil {
			answer = c
		}
	}
	key := ""
	for _, c := range columns {
		if _, ok := doc[c]; ok && PyLower(c) == "answer" {
			key = c
			break
		}
	}
	if key == "" {
		return nil, fmt.Errorf("aime process_results: the doc has no column named answer in any case (Python: StopIteration); columns: %s", strings.Join(columns, ", "))
	}
	return []Result{{"exact_match", b2f(isEquiv(answer, PyStr(doc[key])))}}, nil
}
