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
		"gsm8k":                                 func(a string) string { return "She sells 9 eggs.\n#### " + a },
		"gsm8k_cot":                             func(a string) string { return "9 * 2 = 18. The answer is " + a + "." },
		"gsm8k_cot_zeroshot":                    func(a string) string { return "9 * 2 = 18. The answer is " + a + "." },
		"gsm8k_cot_self_consistency":            func(a string) string { return "The answer is " + a + "." },
		"gsm8k_cot_llama":                       func(a string) string { return "9 * 2 = 18. The final answer is " + a },
		"gsm8k_platinum":                        func(a string) string { return "Work.\n#### " + a },
		"gsm8k_platinum_cot":                    func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_zeroshot":           func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_self_consistency":   func(a string) string { return "The answer is " + a + "." },
		"gsm8k_platinum_cot_llama":              func(a string) string { return "The final answer is " + a },
		"bbh_cot_fewshot_boolean_expressions":   func(a string) string { return "not True is False. So the answer is " + a + "." },
		"bbh_cot_fewshot_date_understanding":    func(a string) string { return "Tomorrow is 05/01/2021. So the answer is " + a + "." },
		"mmlu_flan_cot_zeroshot_anatomy":        func(a string) string { return "The first branch is ... The answer is " + a + "." },
		"arc_challenge_chat":                    func(a string) string { return " " + a },
		"gpqa_main_generative_n_shot":           func(a string) string { return "Reasoning. The answer is " + a + "." },
		"gpqa_main_cot_n_shot":                  func(a string) string { return "Reasoning. The answer is " + a + "." },
		"gpqa_main_cot_zeroshot":                func(a string) string { return "Reasoning. The answer is " + a + "." },
		"hendrycks_math_algebra":                func(a string) string { return "So the answer is $" + a + "$" },
		"hendrycks_math500":                     func(a string) string { return "So the answer is $" + a + "$" },
		"aime24":                                func(a string) string { return "Thus \\boxed{" + a + "}." },
		"aime25":                                func(a string) string { return "Thus \\boxed{" + a + "}." },
		"mmlu_pro_math":                         func(a string) string { return "Step by step. The answer is (" + a + ")." },
		"bbh_cot_zeroshot_date_understanding":   func(a string) string { return "Counting days. So the answer is " + a + "." },
		"bbh_cot_zeroshot_object_counting":      func(a string) string { return "Counting objects. So the answer is " + a + "." },
		"bbh_cot_zeroshot_sports_understanding": func(a string) string { return "So the answer is " + a + "." },
		"bbh_cot_zeroshot_word_sorting":         func(a string) string { return a },
		"triviaqa":                              func(a string) string { return " " + a + "\n" },
		"nq_open":                               func(a string) string { return " " + a },
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
			refs, err := References(task, data.Docs.Problems[:1])
			require.NoError(t, err)
			ref := refs[0]
			target := ref.Target
			if ref.Targets != nil {
				target = ref.Targets[0]
			}
			answer := target
			if a, ok := datasets.FinalAnswer(target); ok {
				answer = a // gsm8k's target is the whole worked answer
			}
			mk, ok := respond[e.Name]
			require.True(t, ok, "no crafted response for %s", e.Name)
			spec := TaskSpec{Name: task.Name, Filters: task.Filters, Metrics: task.Metrics, Repeats: task.Repeats, ProcessResults: task.ProcessResults}
			n := max(1, task.Repeats)
			for _, tc := range []struct {
				answer string
				want   float64
			}{{answer, 1}, {"(Z) 999", 0}} {
				resps := make([]string, n)
				for i := range resps {
					resps[i] = mk(tc.answer)
				}
				grades, err := g.Grade(spec, ref, resps)
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
// each gives: Python hooks without a Go port.
func refusedSharedTasks(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "minerva_math"):
		return "process_results is not ported: its exact_match compares with sympy's LaTeX parser", true
	case name == "ifeval":
		return "utils.process_results (ifeval/utils.py, sha256 1ab8f14808c826f93f2364883487ed63cf4267980bf4761fda8053899c013632): no Go port", true
	}
	return "", false
}
