package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// tasks --check --python-hooks accepts a task whose hook files define the
// functions, and refuses one that names a function its file lacks, without
// running either file.
func TestTasksCheckPythonHooks(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	write("good.yaml", "task: good\ndataset_path: a/b\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\nprocess_results: !function utils.process_results\n")
	write("bad.yaml", "task: bad\ndataset_path: a/b\ntest_split: test\ndoc_to_text: !function utils.missing\ndoc_to_target: a\n")
	// Running this file would fail: the check only reads it.
	write("utils.py", "raise SystemExit('imported')\n\ndef process_results(doc, results):\n    return {}\n")

	var out bytes.Buffer
	require.NoError(t, runTasks([]string{"--include-path", dir, "--check", "--python-hooks", "--python", py}, &out, io.Discard))
	s := out.String()
	assert.Regexp(t, `good\s+python\s+`, s)
	assert.Regexp(t, `bad\s+refused\s+`, s)
	assert.Contains(t, s, "bad: "+filepath.Join(dir, "bad.yaml")+": key doc_to_text: python hook utils.py:missing: utils.py defines no missing (--python-hooks)")
	assert.Contains(t, s, "Python hooks checked with ")
	assert.Contains(t, s, "accepted 6 of 7 generate_until tasks") // 5 built-in gsm8k tasks
	assert.Regexp(t, `\s1\s+1\s+python hook check\n1 accepted tasks run Python hooks \(--python-hooks\)`, s)

	out.Reset()
	require.NoError(t, runTasks([]string{"--include-path", dir, "--check"}, &out, io.Discard))
	assert.Regexp(t, `good\s+refused\s+`, out.String(), "without --python-hooks")

	out.Reset()
	err := runTasks([]string{"--include-path", dir, "--check", "--python-hooks", "--python", "/nonexistent/python3"}, &out, io.Discard)
	assert.ErrorContains(t, err, `interpreter "/nonexistent/python3" (--python)`)
}

func TestTasksShowsPythonHooks(t *testing.T) {
	lmeval := sharedtest.Path(t, "tasks/lm-eval")
	var out bytes.Buffer
	require.NoError(t, runTasks([]string{"--include-path", lmeval, "--python-hooks", "ifeval"}, &out, io.Discard))
	assert.Contains(t, out.String(), "process_results: !function process_results from "+filepath.Join(lmeval, "ifeval", "utils.py")+" (Python, --python-hooks)")
}
