package hooks

// GPQA's generative, cot_n_shot and cot_zeroshot tasks: process_docs
// (lm_eval/tasks/gpqa/{generative,cot_n_shot,cot_zeroshot}/utils.py, one file
// in three folders) cleans the four answers and shuffles them with Python's
// global random module.

import (
	"fmt"
	"strings"
)

var gpqaSources = []Source{
	{"gpqa/generative", "b603828710f1fb3e1b8fe42726b188544ef8dbd12d25f4ca676e42ca4d1a251b"},
	{"gpqa/cot_n_shot", "b603828710f1fb3e1b8fe42726b188544ef8dbd12d25f4ca676e42ca4d1a251b"},
	{"gpqa/cot_zeroshot", "b603828710f1fb3e1b8fe42726b188544ef8dbd12d25f4ca676e42ca4d1a251b"},
}

func init() {
	registerPort(Port{Function: "process_docs", Sources: gpqaSources, Docs: gpqaProcessDocs, UsesRandom: true})
}

// gpqaPreprocess is utils.preprocess: None becomes " "; strip, then " [title]"
// becomes ". " and each pair of spaces one space (one left-to-right pass).
func gpqaPreprocess(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return " ", nil
	case string:
		x = PyStrip(x)
		x = strings.ReplaceAll(x, " [title]", ". ")
		return strings.ReplaceAll(x, "  ", " "), nil
	}
	return "", fmt.Errorf("want a string, got %T (Python would fail on .strip())", v)
}

var gpqaAnswerColumns = []string{"Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3", "Correct Answer"}

// gpqaProcessDocs maps every row: the preprocessed answers in
// [incorrect 1, 2, 3, correct] order, random.shuffle'd (CPython: for i = 3,
// 2, 1, j = _randbelow(i+1), swap), become choice1..4 and choices, and answer
// is the letter where the correct one landed (the first equal choice).
func gpqaProcessDocs(in Rows, env DocsEnv) (Rows, error) {
	if env.Random == nil {
		return Rows{}, fmt.Errorf("gpqa process_docs: no random state")
	}
	out := Rows{Docs: make([]map[string]any, len(in.Docs)), Columns: appendNew(in.Columns, "choice1", "choice2", "choice3", "choice4", "choices", "answer")}
	for i, d := range in.Docs {
		var choices [4]string
		for k, col := range gpqaAnswerColumns {
			v, ok := d[col]
			if !ok {
				return Rows{}, fmt.Errorf("gpqa process_docs: row %d has no column %q", i, col)
			}
			s, err := gpqaPreprocess(v)
			if err != nil {
				return Rows{}, fmt.Errorf("gpqa process_docs: row %d, %s: %w", i, col, err)
			}
			choices[k] = s
		}
		correct := choices[3]
		for k := len(choices) - 1; k > 0; k-- {
			j := env.Random.RandBelow(k + 1)
			choices[k], choices[j] = choices[j], choices[k]
		}
		at := 0
		for at < 3 && choices[at] != correct {
			at++
		}
		nd := make(map[string]any, len(d)+6)
		for k, v := range d {
			nd[k] = v
		}
		for k, c := range choices {
			nd[fmt.Sprintf("choice%d", k+1)] = c
		}
		nd["choices"] = []any{choices[0], choices[1], choices[2], choices[3]}
		nd["answer"] = fmt.Sprintf("(%c)", 'A'+at)
		out.Docs[i] = nd
	}
	return out, nil
}

// appendNew is cols followed by each of add it does not hold (Dataset.map
// keeps a returned existing column in place and appends new ones).
func appendNew(cols []string, add ...string) []string {
	out := append([]string(nil), cols...)
	for _, a := range add {
		found := false
		for _, c := range cols {
			if c == a {
				found = true
				break
			}
		}
		if !found {
			out = append(out, a)
		}
	}
	return out
}
