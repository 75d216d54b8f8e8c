package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// hookTask is one task of ../shared/tasks/expected/hooks.json: its docs'
// prompts and, per invented response, what lm-eval's Python made of it.
type hookTask struct {
	Task string `json:"task"`
	Docs []struct {
		DocIndex int    `json:"doc_index"`
		Prompt   string `json:"prompt"`
	} `json:"docs"`
	Responses []struct {
		DocIndex int                                   `json:"doc_index"`
		Response string                                `json:"response"`
		Filtered map[string]*string                    `json:"filtered"`
		Metrics  map[string]map[string]json.RawMessage `json:"metrics"`
		NotRun   []string                              `json:"not_run"`
	} `json:"responses"`
}

func hookTasks(t *testing.T) []hookTask {
	var file struct {
		Tasks []hookTask `json:"tasks"`
	}
	sharedtest.ReadJSON(t, "tasks/expected/hooks.json", &file)
	return file.Tasks
}

// TestScoreMatchesLMEval scores, for every ported task of
// ../shared/tasks/expected/hooks.json, the first invented response of each
// doc with `entropix-eval score` and checks lm-eval's samples file it
// writes: the prompt (arguments.gen_args_0.arg_0), filtered_resps and every
// metric, against what lm-eval's Python produced, byte for byte (an int as 1,
// a float as 1.0).
func TestScoreMatchesLMEval(t *testing.T) {
	lmeval, data := sharedtest.Path(t, "tasks/lm-eval"), sharedtest.Path(t, "tasks/data")
	scored := 0
	for _, task := range hookTasks(t) {
		if task.Task == "ifeval" || task.Task == "minerva_math500" {
			continue // refused: no Go port of their process_results
		}
		t.Run(task.Task, func(t *testing.T) {
			scoreAgainstLMEval(t, task, "--include-path", lmeval, "--data-dir", data)
			scored++
		})
	}
	assert.GreaterOrEqual(t, scored, 12)
}

// The same through the Python bridge for the tasks whose process_results
// returns ints (hendrycks_math, AIME: `1 if ... else 0`): lm-eval's own
// utils.py run by --python-hooks (a copy no Go port recognises), and the
// samples file logs its ints as 1, as lm-eval does, not 1.0.
func TestScorePythonIntsMatchLMEval(t *testing.T) {
	py := pythontest.Python(t)
	lmeval, data := sharedtest.Path(t, "tasks/lm-eval"), sharedtest.Path(t, "tasks/data")
	folders := map[string]string{"aime24": "aime", "aime25": "aime", "hendrycks_math_algebra": "hendrycks_math", "hendrycks_math500": "hendrycks_math"}
	scored := 0
	for _, task := range hookTasks(t) {
		folder, ok := folders[task.Task]
		if !ok {
			continue
		}
		t.Run(task.Task, func(t *testing.T) {
			copied := pythontest.UnportedCopy(t, filepath.Join(lmeval, folder))
			scoreAgainstLMEval(t, task, "--include-path", copied, "--data-dir", data, "--python-hooks", "--python", py)
			scored++
		})
	}
	assert.Equal(t, len(folders), scored)
}

// scoreAgainstLMEval scores the first invented response of each doc of a
// hooks.json task and compares lm-eval's samples file with lm-eval's values.
func scoreAgainstLMEval(t *testing.T, task hookTask, args ...string) {
	dir := t.TempDir()
	resp := filepath.Join(dir, "r.jsonl")
	f, err := os.Create(resp)
	require.NoError(t, err)
	first := map[int]int{} // doc index -> response index
	for i, r := range task.Responses {
		if _, ok := first[r.DocIndex]; !ok && r.NotRun == nil {
			first[r.DocIndex] = i
		}
	}
	n := 0
	for ; ; n++ {
		if _, ok := first[n]; !ok {
			break
		}
		b, _ := json.Marshal(map[string]any{"doc_index": n, "response": task.Responses[first[n]].Response})
		fmt.Fprintf(f, "%s\n", b)
	}
	require.NoError(t, f.Close())
	require.NotZero(t, n)
	out := filepath.Join(dir, "run")
	require.NoError(t, runScore(append([]string{"--task", task.Task, "--responses", resp, "--out", out}, args...), io.Discard, io.Discard))
	samples, err := filepath.Glob(filepath.Join(out, "lm-eval", "external__seed=0", "external", "samples_*.jsonl"))
	require.NoError(t, err)
	require.Len(t, samples, 1)
	sf, err := os.Open(samples[0])
	require.NoError(t, err)
	defer sf.Close()
	sc := bufio.NewScanner(sf)
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		var rawLine map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rawLine))
		doc := int(line["doc_id"].(float64))
		want := task.Responses[first[doc]]
		args := line["arguments"].(map[string]any)["gen_args_0"].(map[string]any)
		assert.Equal(t, task.Docs[doc].Prompt, args["arg_0"], "doc %d: prompt", doc)
		filter := line["filter"].(string)
		if w := want.Filtered[filter]; w != nil {
			assert.Equal(t, []any{*w}, line["filtered_resps"], "doc %d: %s", doc, filter)
		}
		for metric, v := range want.Metrics[filter] {
			if string(v) != "null" {
				// As Python's json.dumps wrote it: 1 for an int, 1.0 for a float.
				assert.Equal(t, string(v), string(rawLine[metric]), "doc %d: %s,%s", doc, metric, filter)
			}
		}
		lines++
	}
	require.NoError(t, sc.Err())
	assert.NotZero(t, lines)
}

// score keeps a run's rules: a scored output type (its scores come from
// log-likelihoods, not responses) is refused, and so is an --out holding
// someone's own files, which stay untouched.
func TestScoreRefusesScoredTasksAndForeignDirs(t *testing.T) {
	dir := t.TempDir()
	resp := filepath.Join(dir, "r.jsonl")
	require.NoError(t, os.WriteFile(resp, []byte(`{"doc_index": 0, "response": "The answer is 18."}`+"\n"), 0o644))

	mc := filepath.Join(dir, "mc.yaml")
	require.NoError(t, os.WriteFile(mc, []byte("task: mc\ndataset_path: acme/x\ntest_split: test\noutput_type: multiple_choice\n"+
		"doc_to_text: \"{{q}}\"\ndoc_to_target: a\ndoc_to_choice: [x, y]\n"), 0o644))
	err := runScore([]string{"--task", mc, "--responses", resp, "--out", filepath.Join(dir, "mc-run")}, io.Discard, io.Discard)
	assert.ErrorContains(t, err, "output_type multiple_choice is scored from the model's log-likelihoods")
	assert.NoDirExists(t, filepath.Join(dir, "mc-run"))

	data := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"question": "2*9?", "answer": "2*9=18\n#### 18"}`+"\n"), 0o644))
	foreign := filepath.Join(dir, "mine")
	require.NoError(t, os.MkdirAll(foreign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("keep"), 0o644))
	err = runScore([]string{"--task", "gsm8k", "--num-fewshot", "0", "--dataset", data, "--responses", resp, "--out", foreign}, io.Discard, io.Discard)
	assert.ErrorIs(t, err, eval.ErrNotRunDir)
	entries, err := os.ReadDir(foreign)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written beside the user's file")

	run := filepath.Join(dir, "run")
	require.NoError(t, runScore([]string{"--task", "gsm8k", "--num-fewshot", "0", "--dataset", data, "--responses", resp, "--out", run}, io.Discard, io.Discard))
	assert.FileExists(t, filepath.Join(run, eval.RunDirMarker))
}
