package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/jinja"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run refuses the NULL answers `datasets inspect` refuses, naming the column
// and the problem, where it used to score the target "" as 0 and exit 0.
func TestRunRefusesNullAnswers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := smokeArgs(t, dir, "--dataset", sharedtest.Path(t, "data/bad/null-answers.parquet"), "--limit", "5")
	err := runQuiet(t, context.Background(), args)
	require.ErrorIs(t, err, datasets.ErrNull)
	assert.ErrorContains(t, err, `problem 3: doc_to_target reads column "answer", which is NULL`)
	assert.NoDirExists(t, dir)
}

// taskYAML writes dir/file: head (the task's name lines, as YAML) and a task
// reading the GSM8K sample with the given doc_to_text (a YAML scalar as
// written); it returns the path.
func taskYAML(t *testing.T, dir, file, head, docToText string) string {
	t.Helper()
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	body := fmt.Sprintf("%sdataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
		"doc_to_text: %s\ndoc_to_target: \"{{answer}}\"\ngeneration_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 4\n", head, data, docToText)
	path := filepath.Join(dir, file)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

// Hostile task templates end in seconds with an error naming the limit,
// where they crashed the process (a stack overflow) or allocated gigabytes.
func TestRunRefusesHostileTaskTemplates(t *testing.T) {
	for _, tc := range []struct{ name, docToText, want string }{
		{"parentheses", `"{{ ` + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + ` }}"`, "brackets nested"},
		{"multiplied", `"{{ ('x'*100000)*100000 }}"`, "is more than"},
		{"doubling", `"{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"`, "a string of"},
		{"range", `"{% for i in range(100000000) %}x{% endfor %}"`, "range of 100000000 elements"},
		{"center", `"{{ question | center(1000000000) }}"`, "argument 1000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := taskYAML(t, dir, tc.name+".yaml", "task: hostile_"+tc.name+"\n", tc.docToText)
			start := time.Now()
			err := runQuiet(t, context.Background(), []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--task", path,
				"--samplers", "greedy", "--limit", "1", "--progress", "none", "--out", filepath.Join(dir, "run")})
			require.ErrorIs(t, err, jinja.ErrLimit)
			assert.ErrorContains(t, err, tc.want)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}
