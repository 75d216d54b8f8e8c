package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
