package lmevalout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run directory as a run leaves it (Go's encoding/json wrote these files:
// '<', '>', '&' and U+2028 as \u escapes, map keys sorted, whole floats
// without a fraction).
const (
	writeManifest = `{"format":1,"status":"complete",
"config":{"model":"/hub/models--org--m/snapshots/abc","seeds":[0],"repeats":1,"limit":2},
"code":{"revision":"0123456789abcdef"},
"provenance":{"dtype":"F32","sampler_order":"entropix"},
"devices":["cpu"],"batch_size":4,
"samplers":[{"label":"greedy","description":{"sampler":"greedy","temperature":0}}],
"task":{"name":"t","stops":["Q:","\u003c/s\u003e"],"max_new_tokens":16,
 "filters":[{"Name":"strict-match"},{"Name":"flexible-extract"}],"metrics":[{"Metric":"exact_match","Aggregation":"mean","HigherIsBetter":true}],
 "split_size":10,"config":{"task":"t","num_fewshot":0,"version":"3.0","until":["Q:"]}},
"started":"2026-11-23T10:00:00Z","finished":"2026-11-23T10:00:02.5Z"}`
	writeResults = `{"results":{"t|greedy/seed=0":{"alias":"t","exact_match,flexible-extract":1,"exact_match,strict-match":0.5,
"exact_match_stderr,flexible-extract":0,"exact_match_stderr,strict-match":0.5}},"config":{"problems":2}}`
	writeSamples = `{"doc":{"question":"Café \u003cb\u003e\u0026\u003c/b\u003e\u2028 ≥ 1e16?","answer":"#### 4","meta":{"text":"t","answer_start":3,"score":0.1,"big":1e16},"tags":["x"]},"doc_id":0,"exact_match,flexible-extract":1,"exact_match,strict-match":1,"filtered_resps":{"flexible-extract":"4","strict-match":"4"},"prompt":"Q: Café?\nA:","repeat":0,"resps":[["It is 4.\u2029"]],"run_id":"greedy/seed=0","target":"4"}
{"doc":{"question":"tab\there \"q\" \\ \u0001","answer":"#### 5","meta":{"text":"","answer_start":0,"score":2.0,"big":1e-05},"tags":[]},"doc_id":1,"exact_match,flexible-extract":1,"exact_match,strict-match":0,"filtered_resps":{"flexible-extract":"5","strict-match":"[invalid]"},"prompt":"Q: tab?\nA:","repeat":0,"resps":[["5"]],"run_id":"greedy/seed=0","target":"5"}
`
)

// Write's files are what lm-eval writes for the same content, byte for byte.
// The wants are written by hand from evaluator.py (the example dict's key
// order, filters outside docs), save_results_samples (json.dumps(sample,
// ensure_ascii=False) + "\n") and save_results_aggregated (json.dumps(
// results, indent=2, ensure_ascii=False)); the hashes are sha256 of the
// hand-written texts lm-eval hashes.
func TestWriteMatchesLMEvalBytes(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"manifest.json": writeManifest, "results.json": writeResults, "samples.jsonl": writeSamples} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	files, err := Write(dir)
	require.NoError(t, err)
	out := filepath.Join(dir, "lm-eval", "greedy__seed=0", "org__m")
	assert.Equal(t, []string{filepath.Join(out, "results_2026-11-23T10-00-02.500000.json"),
		filepath.Join(out, "samples_t_2026-11-23T10-00-02.500000.jsonl")}, files)

	// json.dumps(doc, indent=2, ensure_ascii=False): doc_hash's text.
	doc0 := strings.Join([]string{`{`,
		`  "question": "Café <b>&</b>` + "\u2028" + ` ≥ 1e16?",`,
		`  "answer": "#### 4",`,
		`  "meta": {`,
		`    "text": "t",`,
		`    "answer_start": 3,`,
		`    "score": 0.1,`,
		`    "big": 1e+16`,
		`  },`,
		`  "tags": [`,
		`    "x"`,
		`  ]`,
		`}`}, "\n")
	doc1 := strings.Join([]string{`{`,
		`  "question": "tab\there \"q\" \\ \u0001",`,
		`  "answer": "#### 5",`,
		`  "meta": {`,
		`    "text": "",`,
		`    "answer_start": 0,`,
		`    "score": 2.0,`,
		`    "big": 1e-05`,
		`  },`,
		`  "tags": []`,
		`}`}, "\n")
	hashes := func(doc, prompt, target string) string {
		return `"doc_hash": "` + HashString(doc) + `", "prompt_hash": "` + HashString(prompt) + `", "target_hash": "` + HashString(target) + `"`
	}
	const argsTail = `"arg_1": {"sampler": "greedy", "temperature": 0, "until": ["Q:", "</s>"], "max_gen_toks": 16}}}`
	line0 := func(filter, metric string) string {
		return `{"doc_id": 0, "doc": {"question": "Café <b>&</b>` + "\u2028" + ` ≥ 1e16?", "answer": "#### 4", ` +
			`"meta": {"text": "t", "answer_start": 3, "score": 0.1, "big": 1e+16}, "tags": ["x"]}, "target": "4", ` +
			`"arguments": {"gen_args_0": {"arg_0": "Q: Café?\nA:", ` + argsTail + `, ` +
			`"resps": [["It is 4.` + "\u2029" + `"]], "filtered_resps": ["4"], "filter": "` + filter + `", "metrics": ["exact_match"], ` +
			hashes(doc0, "Q: Café?\nA:", "4") + `, "exact_match": ` + metric + `}`
	}
	line1 := func(filter, answer, metric string) string {
		return `{"doc_id": 1, "doc": {"question": "tab\there \"q\" \\ \u0001", "answer": "#### 5", ` +
			`"meta": {"text": "", "answer_start": 0, "score": 2.0, "big": 1e-05}, "tags": []}, "target": "5", ` +
			`"arguments": {"gen_args_0": {"arg_0": "Q: tab?\nA:", ` + argsTail + `, ` +
			`"resps": [["5"]], "filtered_resps": ["` + answer + `"], "filter": "` + filter + `", "metrics": ["exact_match"], ` +
			hashes(doc1, "Q: tab?\nA:", "5") + `, "exact_match": ` + metric + `}`
	}
	wantSamples := line0("strict-match", "1.0") + "\n" + line1("strict-match", "[invalid]", "0.0") + "\n" +
		line0("flexible-extract", "1.0") + "\n" + line1("flexible-extract", "5", "1.0") + "\n"
	got, err := os.ReadFile(files[1])
	require.NoError(t, err)
	assert.Equal(t, wantSamples, string(got))

	// task_hashes: the lines' three hashes concatenated in file order.
	var all strings.Builder
	for _, l := range []struct{ doc, prompt, target string }{
		{doc0, "Q: Café?\nA:", "4"}, {doc1, "Q: tab?\nA:", "5"}, {doc0, "Q: Café?\nA:", "4"}, {doc1, "Q: tab?\nA:", "5"},
	} {
		all.WriteString(HashString(l.doc) + HashString(l.prompt) + HashString(l.target))
	}
	wantResults := strings.Join([]string{`{`,
		`  "results": {`,
		`    "t": {`,
		`      "name": "t",`,
		`      "alias": "t",`,
		`      "sample_len": 2,`,
		`      "exact_match,strict-match": 0.5,`,
		`      "exact_match_stderr,strict-match": 0.5,`,
		`      "exact_match,flexible-extract": 1.0,`,
		`      "exact_match_stderr,flexible-extract": 0.0`,
		`    }`,
		`  },`,
		`  "group_subtasks": {},`,
		`  "configs": {`,
		`    "t": {`,
		`      "task": "t",`,
		`      "num_fewshot": 0,`,
		`      "version": "3.0",`,
		`      "until": [`,
		`        "Q:"`,
		`      ]`,
		`    }`,
		`  },`,
		`  "versions": {`,
		`    "t": 3.0`,
		`  },`,
		`  "n-shot": {`,
		`    "t": 0`,
		`  },`,
		`  "higher_is_better": {`,
		`    "t": {`,
		`      "exact_match": true`,
		`    }`,
		`  },`,
		`  "n-samples": {`,
		`    "t": {`,
		`      "original": 10,`,
		`      "effective": 2`,
		`    }`,
		`  },`,
		`  "config": {`,
		`    "model": "entropix-eval",`,
		`    "model_args": "pretrained=org/m,dtype=F32",`,
		`    "batch_size": 4,`,
		`    "batch_sizes": [],`,
		`    "device": "cpu",`,
		`    "use_cache": null,`,
		`    "limit": 2.0,`,
		`    "bootstrap_iters": 0,`,
		`    "gen_kwargs": {`,
		`      "sampler": "greedy",`,
		`      "temperature": 0`,
		`    },`,
		`    "random_seed": 0,`,
		`    "numpy_seed": 0,`,
		`    "torch_seed": 0,`,
		`    "fewshot_seed": 1234,`,
		`    "sampler": "greedy",`,
		`    "sampler_order": "entropix",`,
		`    "first_token_argmax": false`,
		`  },`,
		`  "git_hash": "0123456",`,
		`  "date": 1795428000.0,`,
		`  "task_hashes": {`,
		`    "t": "` + HashString(all.String()) + `"`,
		`  },`,
		`  "model_source": "entropix-eval",`,
		`  "model_name": "org/m",`,
		`  "model_name_sanitized": "org__m",`,
		`  "system_instruction": null,`,
		`  "system_instruction_sha": null,`,
		`  "fewshot_as_multiturn": null,`,
		`  "chat_template": null,`,
		`  "chat_template_sha": null,`,
		`  "total_evaluation_time_seconds": "2.5"`,
		`}`}, "\n")
	got, err = os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, wantResults, string(got))
}

// With repeats, lm-eval logs one line per doc per filter whose resps hold
// every repeat's response, and scores each doc once: one doc leaves its
// standard error "N/A" (calculate_aggregate_metric's len(items) > 1).
// writeRepeatsRun writes a two-repeat run directory with one maj@2 filter.
func writeRepeatsRun(t *testing.T, samples, results string) string {
	dir := t.TempDir()
	manifest := strings.NewReplacer(`"repeats":1`, `"repeats":2`,
		`"filters":[{"Name":"strict-match"},{"Name":"flexible-extract"}]`, `"filters":[{"Name":"maj@2"}]`).Replace(writeManifest)
	for name, text := range map[string]string{"manifest.json": manifest, "results.json": results, "samples.jsonl": samples} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func TestWriteRepeatsMatchesLMEvalBytes(t *testing.T) {
	const samples = `{"doc":{"q":"1+1"},"doc_id":5,"exact_match,maj@2":1,"filtered_resps":{"maj@2":"2"},"prompt":"1+1=","repeat":1,"resps":[["two 2"]],"run_id":"greedy/seed=0","target":"2"}
{"doc":{"q":"1+1"},"doc_id":5,"exact_match,maj@2":1,"filtered_resps":{"maj@2":"2"},"prompt":"1+1=","repeat":0,"resps":[["2"]],"run_id":"greedy/seed=0","target":"2"}
`
	const results = `{"results":{"t|greedy/seed=0":{"alias":"t","exact_match,maj@2":1,"exact_match_stderr,maj@2":0}},"config":{"problems":1}}`
	files, err := Write(writeRepeatsRun(t, samples, results))
	require.NoError(t, err)
	got, err := os.ReadFile(files[1])
	require.NoError(t, err)
	docText := "{\n  \"q\": \"1+1\"\n}"
	want := `{"doc_id": 5, "doc": {"q": "1+1"}, "target": "2", "arguments": {"gen_args_0": {"arg_0": "1+1=", ` +
		`"arg_1": {"sampler": "greedy", "temperature": 0, "until": ["Q:", "</s>"], "max_gen_toks": 16}}}, ` +
		`"resps": [["2", "two 2"]], "filtered_resps": ["2"], "filter": "maj@2", "metrics": ["exact_match"], ` +
		`"doc_hash": "` + HashString(docText) + `", "prompt_hash": "` + HashString("1+1=") + `", "target_hash": "` + HashString("2") + `", ` +
		`"exact_match": 1.0}` + "\n"
	assert.Equal(t, want, string(got))
	got, err = os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Contains(t, string(got), "\n      \"sample_len\": 1,\n      \"exact_match,maj@2\": 1.0,\n      \"exact_match_stderr,maj@2\": \"N/A\"\n    }\n")
}

// A repeats run whose filter leaves a different answer per repeat has no
// lm-eval equivalent: Write says so and leaves no lm-eval folder behind (it
// used to leave an empty lm-eval/<sampler>__seed=0/<model>/, issue 26).
func TestWriteRefusedLeavesNoFolder(t *testing.T) {
	const samples = `{"doc":{"q":"1+1"},"doc_id":5,"exact_match,maj@2":0,"filtered_resps":{"maj@2":"3"},"prompt":"1+1=","repeat":1,"resps":[["three 3"]],"run_id":"greedy/seed=0","target":"2"}
{"doc":{"q":"1+1"},"doc_id":5,"exact_match,maj@2":1,"filtered_resps":{"maj@2":"2"},"prompt":"1+1=","repeat":0,"resps":[["2"]],"run_id":"greedy/seed=0","target":"2"}
`
	const results = `{"results":{"t|greedy/seed=0":{"alias":"t","exact_match,maj@2":0.5,"exact_match_stderr,maj@2":0.5}},"config":{"problems":1}}`
	dir := writeRepeatsRun(t, samples, results)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, Dir, "stale"), 0o755))
	_, err := Write(dir)
	require.ErrorIs(t, err, ErrNotWritten)
	assert.NoDirExists(t, filepath.Join(dir, Dir), "no empty or stale lm-eval folder")
}
