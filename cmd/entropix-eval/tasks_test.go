package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

func TestTasksCommand(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, runTasks(nil, &out, io.Discard))
	assert.Regexp(t, `gsm8k_cot_self_consistency\s+task\s+builtin\s+builtin:gsm8k/gsm8k-cot-self-consistency.yaml`, out.String())

	lmeval := sharedtest.Path(t, "tasks/lm-eval")
	out.Reset()
	require.NoError(t, runTasks([]string{"--include-path", lmeval, "--check"}, &out, io.Discard))
	s := out.String()
	assert.Regexp(t, `arc_challenge_chat\s+task\s+`+lmeval, s)
	assert.Regexp(t, `bbh_cot_fewshot\s+group \(27\)`, s)
	assert.Regexp(t, `gpqa_main_cot_zeroshot\s+task \(1 port\)`, s)
	assert.Regexp(t, `minerva_math500\s+refused`, s)
	assert.Contains(t, s, "minerva_math_algebra.yaml (included by ")
	assert.Contains(t, s, "key process_results: !function utils.process_results")
	assert.Contains(t, s, "sympy's LaTeX parser")
	assert.Regexp(t, `accepted \d+ of \d+ generate_until tasks`, s)

	out.Reset()
	err := runTasks([]string{"--include-path", lmeval, "bbh_cot_fewshot"}, &out, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "25 member tasks are not indexed")

	out.Reset()
	require.NoError(t, runTasks([]string{"--task", lmeval + "/arc/arc_challenge_chat.yaml", "arc_challenge_chat"}, &out, io.Discard))
	assert.Contains(t, out.String(), "allenai/ai2_arc")
	assert.Contains(t, out.String(), "remove_whitespace: remove_whitespace → take_first")
}

// --check's tally counts generate_until tasks only: a scored task, accepted
// or refused, is neither among the accepted nor among the refused.
func TestTasksCheckTallyCountsGenerateUntilOnly(t *testing.T) {
	dir := t.TempDir()
	const base = "dataset_path: acme/x\ntest_split: test\ndoc_to_text: \"{{q}}\"\ndoc_to_target: a\n"
	for name, body := range map[string]string{
		"gen_ok.yaml":     "task: gen_ok\n" + base,
		"gen_bad.yaml":    "task: gen_bad\n" + base + "metric_list:\n  - metric: rouge\n",
		"mc_ok.yaml":      "task: mc_ok\n" + base + "output_type: multiple_choice\ndoc_to_choice: [x, y]\n",
		"ll_bad.yaml":     "task: ll_bad\n" + base + "output_type: loglikelihood\nmetric_list:\n  - metric: bleu\n",
		"unknown_ot.yaml": "task: unknown_ot\n" + base + "output_type: generate\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	var out bytes.Buffer
	require.NoError(t, runTasks([]string{"--include-path", dir, "--check"}, &out, io.Discard))
	s := out.String()
	builtin := len(datasets.TaskNames()) // the built-in GSM8K tasks are listed too
	assert.Contains(t, s, fmt.Sprintf("accepted %d of %d generate_until tasks", builtin+1, builtin+2))
	assert.NotContains(t, s, "  metric_list\n", "ll_bad's blocker is not tallied")
	assert.Regexp(t, `mc_ok\s+task\s`, s)
	assert.Regexp(t, `ll_bad\s+refused`, s)
}
