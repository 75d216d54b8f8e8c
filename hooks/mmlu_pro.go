package hooks

// mmlu_pro (14 subjects): lm_eval/tasks/mmlu_pro/utils.py: the chain-of-
// thought prompt with up to ten lettered options, the few-shot target taken
// from cot_content, and one process_<subject> per category that keeps the
// rows of that category.

import (
	"fmt"
	"strings"
)

var mmluProSources = []Source{{"mmlu_pro", "d47eae06ecf1e9535b033394de62185327a1dca977cb29049003699adeb92801"}}

// mmluProSubjects maps each process_<name> function to its category value.
var mmluProSubjects = map[string]string{
	"biology": "biology", "business": "business", "chemistry": "chemistry", "computer_science": "computer science",
	"economics": "economics", "engineering": "engineering", "health": "health", "history": "history", "law": "law",
	"math": "math", "other": "other", "philosophy": "philosophy", "physics": "physics", "psychology": "psychology",
}

func init() {
	text := func(doc map[string]any) (string, error) { return mmluProExample(doc) }
	registerPort(Port{Function: "doc_to_text", Sources: mmluProSources, Text: text})
	registerPort(Port{Function: "fewshot_to_text", Sources: mmluProSources, Text: text})
	registerPort(Port{Function: "fewshot_to_target", Sources: mmluProSources, Text: mmluProTarget})
	for fn, category := range mmluProSubjects {
		registerPort(Port{Function: "process_" + fn, Sources: mmluProSources, Docs: filterColumn("category", category)})
	}
}

var optionLetters = "ABCDEFGHIJ"

// mmluProExample is format_cot_example(including_answer=False).
func mmluProExample(doc map[string]any) (string, error) {
	q, ok := doc["question"].(string)
	if !ok {
		return "", fmt.Errorf("mmlu_pro doc_to_text: question: want a string, got %T", doc["question"])
	}
	opts, ok := doc["options"].([]any)
	if !ok {
		return "", fmt.Errorf("mmlu_pro doc_to_text: options: want a list, got %T", doc["options"])
	}
	var b strings.Builder
	b.WriteString("Question:\n" + q + "\nOptions:\n")
	for i, o := range opts {
		if i >= len(optionLetters) {
			break
		}
		s, ok := o.(string)
		if !ok {
			return "", fmt.Errorf("mmlu_pro doc_to_text: options[%d]: want a string, got %T", i, o)
		}
		b.WriteString(optionLetters[i:i+1] + ". " + PyStrip(s) + "\n")
	}
	b.WriteString("Answer: Let's think step by step.")
	return b.String(), nil
}

// mmluProTarget is format_cot_target: cot_content without its
// "A: Let's think step by step. " opening (every occurrence, as str.replace).
func mmluProTarget(doc map[string]any) (string, error) {
	c, ok := doc["cot_content"].(string)
	if !ok {
		return "", fmt.Errorf("mmlu_pro fewshot_to_target: cot_content: want a string, got %T", doc["cot_content"])
	}
	return strings.ReplaceAll(c, "A: Let's think step by step. ", ""), nil
}

// strColumn is doc[column] as a string, or an error naming the hook.
func strColumn(doc map[string]any, column, hook string) (string, error) {
	s, ok := doc[column].(string)
	if !ok {
		return "", fmt.Errorf("%s: %s: want a string, got %T", hook, column, doc[column])
	}
	return s, nil
}

// filterColumn is Dataset.filter(lambda x: x[column] == value).
func filterColumn(column, value string) func(Rows, DocsEnv) (Rows, error) {
	return func(in Rows, _ DocsEnv) (Rows, error) {
		out := Rows{Columns: in.Columns, Source: []int{}}
		for i, d := range in.Docs {
			v, ok := d[column]
			if !ok {
				return Rows{}, fmt.Errorf("process_docs: row %d has no column %q (Python: KeyError)", i, column)
			}
			if s, ok := v.(string); ok && s == value {
				out.Docs, out.Source = append(out.Docs, d), append(out.Source, i)
			}
		}
		return out, nil
	}
}
