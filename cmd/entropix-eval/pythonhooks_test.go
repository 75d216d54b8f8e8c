package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// tasks --check --python-hooks accepts a task whose hook files define the
// functions, and refuses one that names a function its file lacks, without
// running either file.
func TestTasksCheckPythonHooks(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
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

// run --python-hooks: mmlu_pro_math's process_docs, doc_to_text and few-shot
// hooks run in Python (an unported copy of the folder) give the run the
// same problems, prompts and scores as the Go ports do; the manifest names
// the interpreter and each hook file's hash.
func TestRunWithPythonPromptHooks(t *testing.T) {
	py := pythontest.Python(t)
	lmeval := sharedtest.Path(t, "tasks/lm-eval")
	run := func(include string, extra ...string) string {
		out := t.TempDir()
		args := append([]string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", include,
			"--data-dir", sharedtest.Path(t, "tasks/data"), "--task", "mmlu_pro_math", "--samplers", "greedy", "--limit", "2",
			"--max-new-tokens", "8", "--progress", "none", "--out", out}, extra...)
		require.NoError(t, runQuiet(t, context.Background(), args))
		return out
	}
	ported := run(lmeval)
	viaPython := run(pythontest.UnportedCopy(t, filepath.Join(lmeval, "mmlu_pro")), "--python-hooks", "--python", py)

	a, b := runOutputs(t, ported), runOutputs(t, viaPython)
	assert.Equal(t, a[eval.ProblemsFile], b[eval.ProblemsFile], "problems and prompts")
	noFingerprint := regexp.MustCompile(`"fingerprint": "[0-9a-f]+"`)
	assert.Equal(t, noFingerprint.ReplaceAllString(a[eval.ResultsJSONFile].(string), ""),
		noFingerprint.ReplaceAllString(b[eval.ResultsJSONFile].(string), ""), "scores (the fingerprints differ: hooks in Python are another run)")
	assert.Equal(t, a[eval.SamplesFile], b[eval.SamplesFile], "every response and score")
	m, err := eval.ReadManifest(viaPython)
	require.NoError(t, err)
	assert.Regexp(t, `\(Python 3\.\d+\.\d+\)$`, m.Provenance.Python)
	assert.Contains(t, m.Task.Config, "python_hooks")
	assert.True(t, m.Config.PythonHooks)
	mp, err := eval.ReadManifest(ported)
	require.NoError(t, err)
	assert.NotEqual(t, mp.Fingerprint, m.Fingerprint, "hooks in Python are another run")
}

// score --python-hooks: the same responses to mmlu_pro_math scored with its
// hooks in Python (an unported copy) and with the Go ports give the same
// lm-eval samples files.
func TestScoreWithPythonPromptHooks(t *testing.T) {
	py := pythontest.Python(t)
	lmeval, data := sharedtest.Path(t, "tasks/lm-eval"), sharedtest.Path(t, "tasks/data")
	resp := filepath.Join(t.TempDir(), "r.jsonl")
	require.NoError(t, os.WriteFile(resp, []byte("{\"doc_index\": 0, \"response\": \"The answer is (C).\"}\n{\"doc_index\": 1, \"response\": \"the answer is B\"}\n"), 0o600))
	score := func(include string, extra ...string) map[string]string {
		out := filepath.Join(t.TempDir(), "run")
		args := append([]string{"--task", "mmlu_pro_math", "--include-path", include, "--data-dir", data, "--responses", resp, "--out", out}, extra...)
		require.NoError(t, runScore(args, io.Discard, io.Discard))
		files, err := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_*.jsonl"))
		require.NoError(t, err)
		require.Len(t, files, 1)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		return map[string]string{"lm-eval samples": string(b), "samples": samplesWithoutRunKey(t, out)}
	}
	assert.Equal(t, score(lmeval), score(pythontest.UnportedCopy(t, filepath.Join(lmeval, "mmlu_pro")), "--python-hooks", "--python", py))
}

// score --python-hooks with a Python process_results: its metrics per doc,
// averaged; a list-valued metric aggregated by mean is refused, named.
func TestScoreWithPythonProcessResults(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	write("qa.yaml", "task: qa\ndataset_path: acme/qa\ntest_split: test\ndoc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\n"+
		"process_results: !function utils.process_results\nmetric_list:\n  - metric: acc\n  - metric: short\n")
	write("utils.py", "def process_results(doc, results):\n"+
		"    r = results[0].strip()\n"+
		"    return {'acc': r == doc['a'], 'short': float(len(r.split()) < 3)}\n")
	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte("{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"3+3\", \"a\": \"6\"}\n"), 0o600))
	resp := filepath.Join(dir, "r.jsonl")
	require.NoError(t, os.WriteFile(resp, []byte("{\"doc_index\": 0, \"response\": \" 4\"}\n{\"doc_index\": 1, \"response\": \"five or so\"}\n"), 0o600))
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"--task", "qa", "--include-path", dir, "--dataset", data, "--responses", resp, "--out", out, "--python-hooks", "--python", py}
	require.NoError(t, runScore(args, io.Discard, io.Discard))
	b, err := os.ReadFile(filepath.Join(out, eval.ResultsJSONFile))
	require.NoError(t, err)
	// acc: True for doc 0, False for doc 1 -> 0.5; short: 1 and 0 -> 0.5.
	assert.Regexp(t, `"acc,none": 0\.5[,\n]`, string(b))
	assert.Regexp(t, `"short,none": 0\.5[,\n]`, string(b))

	_, _, err = eval.Rescore(out, eval.DefaultOutputs())
	assert.ErrorContains(t, err, "grading it needs the interpreter (--python-hooks; rescore and merge take it too)")
	require.NoError(t, runRescore(context.Background(), []string{"--python-hooks", "--python", py, out}, io.Discard, io.Discard))
	again, err := os.ReadFile(filepath.Join(out, eval.ResultsJSONFile))
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again), "rescored through the same hook")
	// A changed hook file does not rescore the run.
	write("utils.py", "def process_results(doc, results):\n    return {'acc': 1.0, 'short': 1.0}\n")
	err = runRescore(context.Background(), []string{"--python-hooks", "--python", py, out}, io.Discard, io.Discard)
	assert.ErrorContains(t, err, "changed since the task was built")

	write("utils.py", "def process_results(doc, results):\n    return {'acc': [True, False], 'short': 1}\n")
	err = runScore(append(args[:len(args)-5:len(args)-5], "--out", filepath.Join(t.TempDir(), "run2"), "--python-hooks", "--python", py), io.Discard, io.Discard)
	assert.ErrorContains(t, err, "task qa: process_results process_results (Python): metric acc: [true, false] is not a number: its aggregation mean would fail on it")
}

// run --python-hooks keeps the interpreter for the whole run when the task's
// process_results is Python: every response is graded through it.
func TestRunWithPythonProcessResults(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "qa.yaml"), []byte("task: qa\ndataset_path: acme/qa\ntest_split: test\n"+
		"doc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\nprocess_results: !function utils.process_results\nmetric_list:\n  - metric: answered\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte("def process_results(doc, results):\n    return {'answered': 1.0}\n"), 0o600))
	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte("{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"3+3\", \"a\": \"6\"}\n"), 0o600))
	out := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir,
		"--task", "qa", "--dataset", data, "--samplers", "greedy", "--max-new-tokens", "4", "--progress", "none", "--out", out,
		"--python-hooks", "--python", py}))
	b, err := os.ReadFile(filepath.Join(out, eval.ResultsJSONFile))
	require.NoError(t, err)
	assert.Regexp(t, `"answered,none": 1(\.0)?[,\n]`, string(b), "every response through the Python process_results")
	m, err := eval.ReadManifest(out)
	require.NoError(t, err)
	require.NotNil(t, m.Task.PythonResults)
	assert.Equal(t, "process_results", m.Task.PythonResults.Function)

	// An edited hook is another task: the run does not resume into it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte("def process_results(doc, results):\n    return {'answered': 0.0}\n"), 0o600))
	err = runQuiet(t, context.Background(), []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir,
		"--task", "qa", "--dataset", data, "--samplers", "greedy", "--max-new-tokens", "4", "--progress", "none", "--out", out,
		"--python-hooks", "--python", py})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "python_hooks")
}

// merge of shards graded by a Python process_results grades them again
// through the interpreter (--python-hooks), giving the unsharded run's
// results; without the flag it says which flag it needs.
func TestMergePythonGradedShards(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "qa.yaml"), []byte("task: qa\ndataset_path: acme/qa\ntest_split: test\n"+
		"doc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\nprocess_results: !function utils.process_results\nmetric_list:\n  - metric: words\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte("def process_results(doc, results):\n    return {'words': int(len(results[0].split()) > 2)}\n"), 0o600))
	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(strings.Repeat("{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"Once upon a time\", \"a\": \"6\"}\n", 2)), 0o600))
	run := func(out string, extra ...string) {
		require.NoError(t, runQuiet(t, context.Background(), append([]string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir,
			"--task", "qa", "--dataset", data, "--samplers", "greedy", "--max-new-tokens", "6", "--progress", "none", "--out", out,
			"--python-hooks", "--python", py}, extra...)))
	}
	whole, s0, s1 := t.TempDir(), t.TempDir(), t.TempDir()
	run(whole)
	run(s0, "--shard", "0/2")
	run(s1, "--shard", "1/2")
	merged := filepath.Join(t.TempDir(), "merged")
	err := runMerge(context.Background(), []string{"--out", merged, s0, s1}, io.Discard, io.Discard)
	assert.ErrorContains(t, err, "grading it needs the interpreter (--python-hooks; rescore and merge take it too)")
	merged = filepath.Join(t.TempDir(), "merged")
	require.NoError(t, runMerge(context.Background(), []string{"--python-hooks", "--python", py, "--out", merged, s0, s1}, io.Discard, io.Discard))
	want, err := os.ReadFile(filepath.Join(whole, eval.ResultsJSONFile))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(merged, eval.ResultsJSONFile))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.Contains(t, string(got), `"words,none"`)
}

// score --python-hooks with Python filter classes: BBH's WordSortFilter and
// MapRegexFilter through the bridge (unported copies) give the same samples
// as their Go ports on hooks.json's responses.
func TestScoreWithPythonFilters(t *testing.T) {
	py := pythontest.Python(t, "nltk")
	shared := sharedtest.Path(t, "tasks")
	for _, kv := range pythontest.LMEvalEnv(t, shared) { // BBH's utils.py imports lm_eval
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var hj struct {
		Tasks []struct {
			Task      string
			Responses []struct {
				DocIndex int    `json:"doc_index"`
				Response string `json:"response"`
			}
		}
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &hj)
	folder := filepath.Join(shared, "lm-eval", "bbh", "cot_zeroshot")
	copied := pythontest.UnportedCopy(t, folder)
	for _, task := range []string{"bbh_cot_zeroshot_word_sorting", "bbh_cot_zeroshot_sports_understanding"} {
		t.Run(task, func(t *testing.T) {
			var lines []string
			seen := map[int]bool{}
			for _, tk := range hj.Tasks {
				for _, r := range tk.Responses {
					if tk.Task == task && !seen[r.DocIndex] {
						seen[r.DocIndex] = true
						b, err := json.Marshal(map[string]any{"doc_index": r.DocIndex, "response": r.Response})
						require.NoError(t, err)
						lines = append(lines, string(b))
					}
				}
			}
			require.NotEmpty(t, lines)
			resp := filepath.Join(t.TempDir(), "r.jsonl")
			require.NoError(t, os.WriteFile(resp, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
			score := func(include string, extra ...string) string {
				out := filepath.Join(t.TempDir(), "run")
				args := append([]string{"--task", task, "--include-path", include, "--data-dir", filepath.Join(shared, "data"),
					"--responses", resp, "--out", out}, extra...)
				require.NoError(t, runScore(args, io.Discard, io.Discard))
				return samplesWithoutRunKey(t, out)
			}
			assert.Equal(t, score(filepath.Join(shared, "lm-eval")), score(copied, "--python-hooks", "--python", py))
		})
	}
}

// A passthrough metric (lm-eval's acc returns its input) under a Python
// aggregation, as afrobench's masakhapos runs it: each doc's value is
// [gold, filtered response], and the aggregation folds them.
func TestScorePassthroughMetricWithPythonAggregation(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	write("pos.yaml", "task: pos\ndataset_path: acme/pos\ntest_split: test\ndoc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\n"+
		"metric_list:\n  - metric: acc\n    aggregation: !function utils.acc_score\n    higher_is_better: true\n")
	// acc_score: the share of docs whose response, stripped, is the gold.
	write("utils.py", "def acc_score(items):\n"+
		"    return sum(gold == pred.strip() for gold, pred in items) / len(items)\n")
	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte("{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"3+3\", \"a\": \"6\"}\n{\"q\": \"1+1\", \"a\": \"2\"}\n"), 0o600))
	resp := filepath.Join(dir, "r.jsonl")
	require.NoError(t, os.WriteFile(resp, []byte("{\"doc_index\": 0, \"response\": \" 4\"}\n{\"doc_index\": 1, \"response\": \"7\"}\n{\"doc_index\": 2, \"response\": \"2 \"}\n"), 0o600))
	out := filepath.Join(t.TempDir(), "run")
	require.NoError(t, runScore([]string{"--task", "pos", "--include-path", dir, "--dataset", data, "--responses", resp, "--out", out, "--python-hooks", "--python", py}, io.Discard, io.Discard))
	for _, rs := range runResults(t, out) {
		assert.InDelta(t, 2.0/3, rs["acc,none"], 1e-15) // docs 0 and 2
		assert.Nil(t, rs["acc_stderr,none"])
		assert.Equal(t, []any{"acc,none"}, rs[eval.KeyCorpusAggregated])
	}
	b, err := os.ReadFile(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"acc,none":["6","7"]`)
}

// fileWriter writes a task folder's files (YAML, utils.py) into dir.
func fileWriter(t *testing.T, dir string) func(name, text string) {
	return func(name, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
}
