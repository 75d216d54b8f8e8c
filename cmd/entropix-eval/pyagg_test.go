package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
)

// runResults reads results.json's entries by run ("task|sampler/seed=N").
func runResults(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	var rj struct {
		Results map[string]map[string]any `json:"results"`
	}
	b, err := os.ReadFile(filepath.Join(dir, eval.ResultsJSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rj))
	return rj.Results
}

// lmEvalFiles reads the run's lm-eval results and samples files (one
// sampler and seed) as text.
func lmEvalFiles(t *testing.T, dir string) (results, samples string) {
	t.Helper()
	for _, pat := range []string{"results_*.json", "samples_*.jsonl"} {
		files, err := filepath.Glob(filepath.Join(dir, "lm-eval", "*", "*", pat))
		require.NoError(t, err)
		require.NotEmpty(t, files, pat)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		if strings.HasPrefix(pat, "results") {
			results = string(b)
		} else {
			samples = string(b)
		}
	}
	return results, samples
}

// score --python-hooks with a list-valued metric and a Python aggregation
// (a synthetic task): the per-doc lists go to the samples files as Python
// returned them, the aggregation's value to results.json with no standard
// error (lm-eval's "N/A"), and an aggregation that raises is an error naming
// task, metric and hook.
func TestScorePythonAggregation(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	write("qa.yaml", "task: qa\ndataset_path: acme/qa\ntest_split: test\ndoc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\n"+
		"process_results: !function utils.process_results\nmetric_list:\n  - metric: acc\n"+
		"  - metric: words\n    aggregation: !function utils.agg\n    higher_is_better: true\n")
	// words: one boolean per word of the response, whether it is the answer.
	write("utils.py", "def process_results(doc, results):\n"+
		"    words = results[0].split()\n"+
		"    return {'acc': results[0].strip() == doc['a'], 'words': [w == doc['a'] for w in words]}\n\n"+
		"def agg(items):\n"+
		"    flat = [x for item in items for x in item]\n"+
		"    return sum(flat) / len(flat)\n")
	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte("{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"3+3\", \"a\": \"6\"}\n"), 0o600))
	resp := filepath.Join(dir, "r.jsonl")
	require.NoError(t, os.WriteFile(resp, []byte("{\"doc_index\": 0, \"response\": \" 4\"}\n{\"doc_index\": 1, \"response\": \"6 or 7 or 6\"}\n"), 0o600))
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"--task", "qa", "--include-path", dir, "--dataset", data, "--responses", resp, "--out", out, "--python-hooks", "--python", py}
	require.NoError(t, runScore(args, io.Discard, io.Discard))

	res := runResults(t, out)
	require.Len(t, res, 1)
	for _, rs := range res {
		assert.Equal(t, 0.5, rs["acc,none"]) // True, False
		// words: [True] and [True, False, False, False, True] flattened: 3 of 6,
		// not the mean of the docs' means (1 and 0.4).
		assert.Equal(t, 0.5, rs["words,none"])
		assert.Nil(t, rs["words_stderr,none"])
		assert.Equal(t, []any{"acc,none", "words,none"}, rs["score_keys"])
		assert.Equal(t, []any{"words,none"}, rs[eval.KeyCorpusAggregated])
	}
	b, err := os.ReadFile(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"words,none":[true,false,false,false,true]`)
	results, samples := lmEvalFiles(t, out)
	assert.Contains(t, results, "\"words,none\": 0.5,\n      \"words_stderr,none\": \"N/A\"")
	assert.Contains(t, samples, `"metrics": ["acc", "words"]`)
	assert.Contains(t, samples, `"words": [true, false, false, false, true]`)

	// The same through rescore.
	want := runOutputs(t, out)
	require.NoError(t, runRescore(context.Background(), []string{"--python-hooks", "--python", py, out}, io.Discard, io.Discard))
	assert.Equal(t, want, runOutputs(t, out), "rescored through the same hooks")

	write("utils.py", "def process_results(doc, results):\n    return {'acc': 1.0, 'words': [True]}\n\n"+
		"def agg(items):\n    return 1 / 0\n")
	err = runScore(append(args[:len(args)-5:len(args)-5], "--out", filepath.Join(t.TempDir(), "run2"), "--python-hooks", "--python", py), io.Discard, io.Discard)
	assert.ErrorContains(t, err, "task qa: metric words, filter none: aggregation !function utils.agg: task qa: aggregation hook utils.py:agg raised ZeroDivisionError")
}

// lmEvalIFEval runs lm-eval's own IFEval code (process_results, then
// agg_inst_level_acc per run) on a run's samples.jsonl: per run id, every
// doc's dict and the two instruction-level aggregates.
const lmEvalIFEval = `import json, sys
from lm_eval.tasks.ifeval import utils
out = {}
for line in open(sys.argv[1]):
    s = json.loads(line)
    run = out.setdefault(s["run_id"], {"docs": [], "agg": {}})
    run["docs"].append(utils.process_results(s["doc"], [s["filtered_resps"]["none"]]))
for run in out.values():
    for m in ("inst_level_strict_acc", "inst_level_loose_acc"):
        run["agg"][m] = utils.agg_inst_level_acc([d[m] for d in run["docs"]])
print(json.dumps(out))
`

// run --python-hooks on lm-eval's ifeval folder with the tiny model: the
// four metrics, per doc equal to what lm-eval's own utils.py computes on the
// same responses, the instruction-level scores its agg_inst_level_acc's;
// the lm-eval files and the report carry them; rescore and a resume after a
// kill give the same results.
func TestRunIFEvalWithPythonHooks(t *testing.T) {
	py := pythontest.Python(t, "nltk", "langdetect", "immutabledict", "packaging")
	shared := sharedtest.Path(t, "tasks")
	env := pythontest.LMEvalEnv(t, shared)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	out := t.TempDir()
	// Docs 0-5 (doc 7 needs NLTK's punkt data, which Debian does not ship).
	args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", filepath.Join(shared, "lm-eval"),
		"--data-dir", filepath.Join(shared, "data"), "--task", "ifeval", "--limit", "6", "--samplers", "greedy,top_p",
		"--max-new-tokens", "48", "--progress", "none", "--out", out, "--python-hooks", "--python", py}
	require.NoError(t, runQuiet(t, context.Background(), args))

	script := filepath.Join(t.TempDir(), "lmeval_ifeval.py")
	require.NoError(t, os.WriteFile(script, []byte(lmEvalIFEval), 0o600))
	cmd := exec.Command(py, script, filepath.Join(out, eval.SamplesFile))
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	lmOut, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var lm map[string]lmEvalRun
	require.NoError(t, json.Unmarshal(lmOut, &lm))

	metrics := []string{"prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc", "inst_level_loose_acc"}
	b, err := os.ReadFile(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	seen := map[string]int{}
	instTrue := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		run := s["run_id"].(string)
		want := lm[run].Docs[seen[run]]
		seen[run]++
		for _, m := range metrics {
			got := s[m+",none"]
			assert.Equal(t, want[m], got, "%s doc %v %s: the value as lm-eval computes it", run, s["doc_id"], m)
			if list, ok := got.([]any); ok {
				for _, x := range list {
					instTrue += int(b2f(x.(bool)))
				}
			}
		}
	}
	assert.Equal(t, map[string]int{"greedy/seed=0": 6, "top_p/seed=0": 6}, seen)

	// results.arrow: the lists as list<double> columns (1 and 0), no score column.
	rows, err := reports.ReadResults(filepath.Join(out, eval.ResultsArrow))
	require.NoError(t, err)
	require.Len(t, rows, 12)
	assert.Equal(t, []reports.ScoreKey{"prompt_level_strict_acc,none", "prompt_level_loose_acc,none"}, reports.ScoreKeys(rows))
	assert.Equal(t, []reports.ScoreKey{"inst_level_strict_acc,none", "inst_level_loose_acc,none"}, reports.ListKeys(rows))
	for i, r := range rows {
		want := lm[r.RunID].Docs[i%6]
		for _, m := range []string{"inst_level_strict_acc", "inst_level_loose_acc"} {
			var bits []float64
			for _, x := range want[m].([]any) {
				bits = append(bits, b2f(x.(bool)))
			}
			got, ok := r.List(reports.KeyOf(m, "none"))
			require.True(t, ok)
			assert.Equal(t, bits, got, "row %d %s", i, m)
		}
	}
	assert.Positive(t, instTrue, "some instruction followed, so the comparison is not all false")

	duckdbListCheck(t, out, lm)

	res := runResults(t, out)
	require.Len(t, res, 2)
	for run, want := range lm {
		rs := res["ifeval|"+run]
		require.NotNil(t, rs, run)
		assert.Equal(t, []any{"prompt_level_strict_acc,none", "inst_level_strict_acc,none", "prompt_level_loose_acc,none", "inst_level_loose_acc,none"}, rs["score_keys"])
		for _, m := range []string{"inst_level_strict_acc", "inst_level_loose_acc"} {
			assert.Equal(t, want.Agg[m], rs[m+",none"], "%s %s: agg_inst_level_acc's value", run, m)
			assert.Nil(t, rs[m+"_stderr,none"], "%s %s: no standard error", run, m)
		}
		for _, m := range []string{"prompt_level_strict_acc", "prompt_level_loose_acc"} {
			sum := 0.0
			for _, d := range want.Docs {
				sum += b2f(d[m].(bool))
			}
			assert.InDelta(t, sum/float64(len(want.Docs)), rs[m+",none"], 1e-15, "%s %s: the mean", run, m)
			assert.NotNil(t, rs[m+"_stderr,none"], "%s %s: a mean keeps its standard error", run, m)
		}
	}
	results, samples := lmEvalFiles(t, out)
	assert.Contains(t, results, `"inst_level_strict_acc_stderr,none": "N/A"`)
	assert.Contains(t, results, `"inst_level_loose_acc_stderr,none": "N/A"`)
	assert.NotContains(t, results, `"prompt_level_strict_acc_stderr,none": "N/A"`)
	assert.Regexp(t, `"inst_level_strict_acc": \[(true|false)(, (true|false))*\]`, samples)
	md, err := os.ReadFile(filepath.Join(out, "tables", "results.md"))
	require.NoError(t, err)
	assert.Regexp(t, `\|greedy +\|none +\| +0\|inst_level_strict_acc +\|↑\|[0-9.]+\| \|n/a: Python aggregation\|`, string(md))

	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<th>inst_level_strict_acc,none</th><th>inst_level_loose_acc,none</th><th>n</th>")
	assert.Contains(t, string(html), `<br><span class="ci">n/a: Python aggregation</span></td>`)

	want := runOutputs(t, out)
	require.NoError(t, runRescore(context.Background(), []string{"--python-hooks", "--python", py, out}, io.Discard, io.Discard))
	assert.Equal(t, want, runOutputs(t, out), "rescored through the same hooks")

	// What a kill leaves: part of the journal, the run still marked running.
	journal := filepath.Join(out, eval.JournalFile)
	b, err = os.ReadFile(journal)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.NoError(t, os.WriteFile(journal, []byte(strings.Join(lines[:3], "")), 0o600))
	manifest := filepath.Join(out, eval.ManifestFile)
	mb, err := os.ReadFile(manifest)
	require.NoError(t, err)
	require.Contains(t, string(mb), `"status": "complete"`)
	require.NoError(t, os.WriteFile(manifest, bytes.Replace(mb, []byte(`"status": "complete"`), []byte(`"status": "running"`), 1), 0o600))
	require.NoError(t, runQuiet(t, context.Background(), args))
	assert.Equal(t, want, runOutputs(t, out), "resumed after a kill")
}

// lmEvalRun is one run's output of lmEvalIFEval.
type lmEvalRun struct {
	Docs []map[string]any
	Agg  map[string]float64
}

// duckdbListCheck reads the Parquet copy's list column with DuckDB (when
// installed, as for the notebook recipes): agg_inst_level_acc is
// list_sum over list_count of the lists, per sampler.
func duckdbListCheck(t *testing.T, dir string, lm map[string]lmEvalRun) {
	t.Helper()
	node, err := exec.LookPath("node")
	query := filepath.Join("..", "..", "reports", "parquetcheck", "query.mjs")
	_, statErr := os.Stat(filepath.Join("..", "..", "reports", "parquetcheck", "node_modules", "@duckdb", "node-api"))
	if err != nil || statErr != nil {
		if os.Getenv("ENTROPIX_PARQUETCHECK") == "1" {
			t.Fatalf("ENTROPIX_PARQUETCHECK=1 but node or reports/parquetcheck/node_modules is missing (npm ci --prefix reports/parquetcheck)")
		}
		t.Log("DuckDB not installed (npm ci --prefix reports/parquetcheck): the Parquet list column is not read back")
		return
	}
	sql := `SELECT run_id, sum(list_sum("inst_level_strict_acc,none")) / sum(len("inst_level_strict_acc,none")) AS inst ` +
		`FROM read_parquet('` + filepath.Join(dir, "results.parquet") + `') GROUP BY run_id ORDER BY run_id`
	b, err := exec.Command(node, query, sql).CombinedOutput()
	require.NoError(t, err, "%s", b)
	var res struct{ Rows [][]any }
	require.NoError(t, json.Unmarshal(b, &res))
	require.Len(t, res.Rows, len(lm))
	for _, row := range res.Rows {
		assert.InDelta(t, lm[row[0].(string)].Agg["inst_level_strict_acc"], row[1], 1e-12, "%v", row)
	}
}

// score --python-hooks on hooks.json's IFEval responses (what lm-eval's own
// process_results returned for each, ../shared/tasks/expected): the lm-eval
// samples lines carry each doc's four values exactly as lm-eval logs them
// (booleans, lists of booleans), and the results file the four aggregates
// by lm-eval's formulas, "N/A" as the instruction-level standard errors.
func TestScoreIFEvalMatchesLMEvalSamples(t *testing.T) {
	py := pythontest.Python(t, "nltk", "langdetect", "immutabledict", "packaging")
	shared := sharedtest.Path(t, "tasks")
	for _, kv := range pythontest.LMEvalEnv(t, shared) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var hj struct {
		Tasks []struct {
			Task      string
			Responses []struct {
				DocIndex int                        `json:"doc_index"`
				Response string                     `json:"response"`
				Metrics  map[string]json.RawMessage `json:"metrics"`
			}
		}
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &hj)
	// score takes one response for each of docs 0..n: round k holds each
	// doc's k-th response, or its first where it has fewer.
	type response struct {
		line    string
		metrics map[string]any
	}
	byDoc := map[int][]response{}
	for _, tk := range hj.Tasks {
		if tk.Task != "ifeval" {
			continue
		}
		for _, r := range tk.Responses {
			if string(r.Metrics["none"]) == "null" {
				continue // doc 7 needs NLTK's punkt data, absent here as where hooks.json was made
			}
			var m map[string]any
			require.NoError(t, json.Unmarshal(r.Metrics["none"], &m))
			b, err := json.Marshal(map[string]any{"doc_index": r.DocIndex, "response": r.Response})
			require.NoError(t, err)
			byDoc[r.DocIndex] = append(byDoc[r.DocIndex], response{string(b), m})
		}
	}
	require.Len(t, byDoc, 7, "docs 0-6")
	var rounds []map[int]response
	for k := 0; k < 3; k++ {
		round := map[int]response{}
		for d, rs := range byDoc {
			round[d] = rs[0]
			if k < len(rs) {
				round[d] = rs[k]
			}
		}
		rounds = append(rounds, round)
	}
	require.Len(t, rounds, 3)
	checked := 0
	for k, round := range rounds {
		var lines []string
		for d := range len(round) {
			lines = append(lines, round[d].line)
		}
		resp := filepath.Join(t.TempDir(), "r.jsonl")
		require.NoError(t, os.WriteFile(resp, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
		out := filepath.Join(t.TempDir(), "run")
		require.NoError(t, runScore([]string{"--task", "ifeval", "--include-path", filepath.Join(shared, "lm-eval"), "--data-dir", filepath.Join(shared, "data"),
			"--responses", resp, "--out", out, "--python-hooks", "--python", py}, io.Discard, io.Discard))
		results, samples := lmEvalFiles(t, out)
		sums := map[string][2]float64{}
		for _, line := range strings.Split(strings.TrimSpace(samples), "\n") {
			var s map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &s))
			w := round[int(s["doc_id"].(float64))]
			require.NotNil(t, w.metrics, "doc %v", s["doc_id"])
			for m, v := range w.metrics {
				assert.Equal(t, v, s[m], "round %d doc %v %s", k, s["doc_id"], m)
				vals, ok := v.([]any)
				if !ok {
					vals = []any{v}
				}
				for _, x := range vals {
					sums[m] = [2]float64{sums[m][0] + b2f(x.(bool)), sums[m][1] + 1}
				}
			}
			checked++
		}
		var rj struct {
			Results map[string]map[string]any `json:"results"`
		}
		require.NoError(t, json.Unmarshal([]byte(results), &rj))
		entry := rj.Results["ifeval"]
		for m, s := range sums {
			assert.InDelta(t, s[0]/s[1], entry[m+",none"], 1e-15, "round %d %s", k, m)
		}
		assert.Equal(t, "N/A", entry["inst_level_strict_acc_stderr,none"])
		assert.Equal(t, "N/A", entry["inst_level_loose_acc_stderr,none"])
		assert.IsType(t, 0.0, entry["prompt_level_strict_acc_stderr,none"])
	}
	assert.Equal(t, 21, checked)
}

// run --python-hooks whose Python aggregation raises when the run finishes:
// an error naming task, metric and hook, the run left unfinished with its
// responses journaled; once the cause is gone (here an environment
// variable the hook reads), the same command finishes it.
func TestRunPythonAggregationFaultResumes(t *testing.T) {
	py := pythontest.Python(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	write("qa.yaml", "task: qa\ndataset_path: acme/qa\ntest_split: test\ndoc_to_text: \"Q: {{q}}\\nA:\"\ndoc_to_target: a\n"+
		"process_results: !function utils.process_results\nmetric_list:\n  - metric: acc\n  - metric: words\n    aggregation: !function utils.agg\n")
	write("utils.py", "import os\n\ndef process_results(doc, results):\n    return {'acc': True, 'words': [True, False, False]}\n\n"+
		"def agg(items):\n    if os.environ.get('ENTROPIX_TEST_FAIL_AGG'):\n        raise RuntimeError('failing on purpose')\n"+
		"    flat = [x for item in items for x in item]\n    return sum(flat) / len(flat)\n")
	write("test.jsonl", "{\"q\": \"2+2\", \"a\": \"4\"}\n{\"q\": \"3+3\", \"a\": \"6\"}\n")
	out := t.TempDir()
	args := []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir, "--task", "qa", "--dataset", filepath.Join(dir, "test.jsonl"),
		"--samplers", "greedy", "--max-new-tokens", "4", "--progress", "none", "--out", out, "--python-hooks", "--python", py}
	t.Setenv("ENTROPIX_TEST_FAIL_AGG", "1")
	err := runQuiet(t, context.Background(), args)
	require.ErrorContains(t, err, "task qa: metric words, filter none: aggregation !function utils.agg: task qa: aggregation hook utils.py:agg raised RuntimeError: failing on purpose")
	m, err := eval.ReadManifest(out)
	require.NoError(t, err)
	assert.Equal(t, eval.StatusRunning, m.Status)
	recs, err := eval.ReadJournal(filepath.Join(out, eval.JournalFile))
	require.NoError(t, err)
	assert.Len(t, recs, 2, "the responses are journaled")

	t.Setenv("ENTROPIX_TEST_FAIL_AGG", "")
	require.NoError(t, runQuiet(t, context.Background(), args))
	for _, rs := range runResults(t, out) {
		assert.InDelta(t, 1.0/3, rs["words,none"], 1e-15)
		assert.Equal(t, 1.0, rs["acc,none"])
	}
}
