package eval

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/hooks"
)

// scoredDoc builds a doc's loglikelihood requests as lm-eval's
// construct_requests does, from its context (the prompt: description, shots
// and doc_to_text, chat-rendered when asked), and the target lm-eval's samples
// show (str(doc_to_target(doc))).
func scoredDoc(task *datasets.Task, doc datasets.Problem, context string, chat bool) (*loglik.Doc, string, error) {
	switch task.OutputType {
	case datasets.OutputMultipleChoice:
		choices, err := task.Choices(doc.Doc)
		if err != nil {
			return nil, "", err
		}
		if len(choices) == 0 {
			return nil, "", fmt.Errorf("doc_to_choice gave no choices")
		}
		gold, err := task.Gold(doc.Doc)
		if err != nil {
			return nil, "", err
		}
		// With a chat template the delimiter is dropped unless a gen_prefix
		// not ending in whitespace precedes the choice (never here: gen_prefix
		// with a chat template is refused).
		delim := task.TargetDelimiter
		if chat {
			delim = ""
		}
		d := &loglik.Doc{OutputType: loglik.MultipleChoice, Choices: choices, Gold: gold}
		for _, c := range choices {
			d.Requests = append(d.Requests, loglik.Request{Context: context, Continuation: delim + c})
		}
		if slices.ContainsFunc(task.Metrics, func(m datasets.MetricSpec) bool { return m.Metric == "acc_mutual_info" }) {
			d.MutualInfo = true
			for _, c := range choices {
				d.Requests = append(d.Requests, loglik.Request{Continuation: delim + c})
			}
		}
		target := choiceTarget(task, doc.Doc, choices, gold)
		return d, target, nil
	case datasets.OutputLoglikelihood:
		cont, err := task.DocToTarget.RenderString(doc.Doc)
		if err != nil {
			return nil, "", err
		}
		return &loglik.Doc{OutputType: loglik.LogLikelihood, Requests: []loglik.Request{{Context: context, Continuation: cont}}}, cont, nil
	case datasets.OutputRolling:
		if context != "" {
			return nil, "", fmt.Errorf("loglikelihood_rolling scores the whole doc_to_target; the context must be empty (no doc_to_text, description or few-shot), got %q", clip(context, 60))
		}
		text, err := task.DocToTarget.RenderString(doc.Doc)
		if err != nil {
			return nil, "", err
		}
		d := loglik.NewRolling(text)
		return &d, text, nil
	}
	return nil, "", fmt.Errorf("output_type %q is not scored", task.OutputType)
}

// choiceTarget is str(doc_to_target(doc)) for a multiple_choice doc: the
// index when the target is one, else the text.
func choiceTarget(task *datasets.Task, doc datasets.Doc, choices []string, gold int) string {
	if v, err := task.DocToTarget.Render(doc); err == nil {
		if s := hooks.PyStr(v); s != "" {
			return s
		}
	}
	if gold >= 0 && gold < len(choices) {
		return strconv.Itoa(gold)
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
