package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestSharedTasksScore loads every task of ../shared/tasks, renders doc 0's
// target and grades a response written the way the task's first filter expects
// an answer: it must score 1 under every metric of that filter, and a wrong
// answer 0. A task listed in refusedSharedTasks must fail to load with that
// error instead, so a task that starts loading has to gain a crafted response.
func TestSharedTasksScore(t *testing.T) {
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	mirror := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(mirror, "openai"), 0o755))
	require.NoError(t, os.Symlink(sharedtest.Path(t, "data/gsm8k"), filepath.Join(mirror, "openai", "gsm8k")))
	src := datasets.DataSource{DataDirs: []string{sharedtest.Path(t, "tasks/data"), mirror}}

	respond := map[string]func(answer string) string{
		"gsm8k":                               func(a string) string { return "She sells 9 eggs.\n#### " + a },
		"gsm8k_cot":                           func(a string) string { return "9 * 2 = 18. The answer is " + a + "." },
		"gsm8k_cot_zeroshot":                  func(a string) string { return "9 * 2 = 18. The answer is " + a + "." },
		"gsm8k_cot_self_consistency":          func(a string) string { return "The answer is " + a + "." },
		"gsm8k_cot_llama":                     func(a string) string { return "9 * 2 = 18. The final answer is " + a },
		"gsm8k_platinum":                      func(a string) string { return "Work.\n#### " + a },
		"gsm8k_platinum_cot":                  func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_zeroshot":         func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_self_consistency": func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_llama":            func(a string) string { return "The final answer is " + a },
		"bbh_cot_fewshot_boolean_expressions": func(a string) string { return "not True is False. So the answer is " + a + "." },
		"bbh_cot_fewshot_date_understanding":  func(a string) string { return "Tomorrow is 05/01/2021. So the answer is " + a + "." },
		"mmlu_flan_cot_zeroshot_anatomy":      func(a string) string { return "The first branch is ... The answer is " + a + "." },
		"arc_challenge_chat":                  func(a string) string { return " " + a },
	}
	g := NewLMEvalGrader()
	for _, e := range ix.Entries() {
		if e.Kind != datasets.KindTask || !strings.Contains(e.File, "lm-eval") {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			task, err := ix.Task(e.Name)
			var data *datasets.TaskData
			if err == nil {
				data, err = datasets.LoadTaskData(task, src, 0)
			}
			if want, refused := refusedSharedTasks(e.Name); refused {
				require.ErrorContains(t, err, want)
				return
			}
			require.NoError(t, err)
			doc := data.Docs.Problems[0].Doc
			target, err := task.Target(doc)
			require.NoError(t, err)
			answer := target
			if a, ok := datasets.FinalAnswer(target); ok {
				answer = a // gsm8k's target is the whole worked answer
			}
			mk, ok := respond[e.Name]
			require.True(t, ok, "no crafted response for %s", e.Name)
			spec := TaskSpec{Name: task.Name, Filters: task.Filters, Metrics: task.Metrics, Repeats: task.Repeats}
			n := max(1, task.Repeats)
			for _, tc := range []struct {
				answer string
				want   float64
			}{{answer, 1}, {"(Z) 999", 0}} {
				resps := make([]string, n)
				for i := range resps {
					resps[i] = mk(tc.answer)
				}
				grades, err := g.Grade(spec, doc, resps, target)
				require.NoError(t, err)
				first := task.Filters[0].Name
				for _, s := range grades[0].Scores {
					if s.Filter == first && s.Metric == "exact_match" {
						assert.Equal(t, tc.want, s.Value, "%s on %q (target %q, answers %v)", s.Key(), resps[0], target, grades[0].Answers)
					}
				}
			}
		})
	}
}

// refusedSharedTasks names the shared tasks that do not load yet and the error
// each gives: Python hooks without a Go port, and the gaps the ported-hooks
// issue lists.
func refusedSharedTasks(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "gpqa"), strings.HasPrefix(name, "aime"),
		strings.HasPrefix(name, "hendrycks_math"), strings.HasPrefix(name, "minerva_math"),
		strings.HasPrefix(name, "mmlu_pro"), strings.HasPrefix(name, "bbh_cot_zeroshot"),
		name == "ifeval":
		return "is Python code, which entropix-eval cannot run", true
	case name == "triviaqa":
		return "decontamination is not supported", true
	case name == "nq_open":
		return "data not found offline", true
	}
	return "", false
}
