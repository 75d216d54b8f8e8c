package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// makeTable re-implements lm-eval's utils.make_table row building (v0.4.10+)
// over a results file: per task, its (metric, filter) keys sorted, stderr keys
// skipped, value and stderr as %.4f, "N/A" kept.
func makeTable(t *testing.T, rd map[string]any) [][]string {
	t.Helper()
	var rows [][]string
	results := rd["results"].(map[string]any)
	versions := rd["versions"].(map[string]any)
	nshot := rd["n-shot"].(map[string]any)
	hibAll := rd["higher_is_better"].(map[string]any)
	var tasks []string
	for k := range results {
		tasks = append(tasks, k)
	}
	sort.Strings(tasks)
	for _, task := range tasks {
		dic := map[string]any{}
		for k, v := range results[task].(map[string]any) {
			dic[k] = v
		}
		version := "    N/A"
		if v, ok := versions[task]; ok {
			version = fmt.Sprint(v)
		}
		n := " "
		if v, ok := nshot[task]; ok {
			n = fmt.Sprint(v)
		}
		hib, _ := hibAll[task].(map[string]any)
		name := task
		if a, ok := dic["alias"].(string); ok {
			name = a
		}
		for _, k := range []string{"alias", "name", "sample_len", "sample_count"} {
			delete(dic, k)
		}
		keys := make([]string, 0, len(dic))
		for k := range dic {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, mf := range keys {
			m, f, _ := strings.Cut(mf, ",")
			if strings.HasSuffix(m, "_stderr") {
				continue
			}
			sym := ""
			if b, ok := hib[m].(bool); ok {
				sym = map[bool]string{true: "↑", false: "↓"}[b]
			}
			v := fmt.Sprint(dic[mf])
			if fv, ok := dic[mf].(float64); ok {
				v = fmt.Sprintf("%.4f", fv)
			}
			if se, ok := dic[m+"_stderr,"+f]; ok {
				s := "   N/A"
				if fs, ok := se.(float64); ok {
					s = fmt.Sprintf("%.4f", fs)
				}
				rows = append(rows, []string{name, version, f, n, m, sym, v, "±", s})
			} else {
				rows = append(rows, []string{name, version, f, n, m, sym, v, "", ""})
			}
			name = ""
		}
	}
	return rows
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		out = append(out, m)
	}
	require.NoError(t, sc.Err())
	return out
}

// The CLI driven with lm-eval's spellings only (plus --dataset) writes lm-eval's
// output files, checked field by field against our own result files and
// lm-eval's make_table.
func TestE2ELMEvalSpellingsAndFiles(t *testing.T) {
	isolateDemoEnv(t)
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	model := sharedtest.Path(t, "models/stories260K-hf")
	out := filepath.Join(t.TempDir(), "out")
	const task = "gsm8k_cot_zeroshot"
	args := []string{"--model", "hf", "--model_args", "pretrained=" + model + ",dtype=float32",
		"--tasks", task, "--dataset", data, "--limit", "0.0023", // ceil(1319 × 0.0023) = 4
		"--gen_kwargs", "temperature=0,max_gen_toks=16", "--seed", "0", "--batch_size", "auto",
		"--output_path", out, "--log_samples", "--progress", "none"}
	require.NoError(t, runRun(context.Background(), args, io.Discard, io.Discard))

	var ours struct {
		Results map[string]map[string]any `json:"results"`
	}
	b, err := os.ReadFile(filepath.Join(out, eval.ResultsJSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ours))
	mine := ours.Results[task+"|greedy/seed=0"]
	require.NotNil(t, mine)

	modelDir := filepath.Join(out, "lm-eval", "greedy__seed=0", strings.ReplaceAll(model, "/", "__"))
	resultsFiles, _ := filepath.Glob(filepath.Join(modelDir, "results_*.json"))
	sampleFiles, _ := filepath.Glob(filepath.Join(modelDir, "samples_"+task+"_*.jsonl"))
	require.Len(t, resultsFiles, 1)
	require.Len(t, sampleFiles, 1)
	dateID := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(resultsFiles[0]), "results_"), ".json")
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}$`, dateID, "datetime.isoformat() with ':' → '-'")
	assert.Equal(t, "samples_"+task+"_"+dateID+".jsonl", filepath.Base(sampleFiles[0]))

	var rd map[string]any
	b, err = os.ReadFile(resultsFiles[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rd))
	for _, k := range []string{"results", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better", "n-samples",
		"config", "git_hash", "date", "task_hashes", "model_source", "model_name", "model_name_sanitized",
		"system_instruction", "system_instruction_sha", "fewshot_as_multiturn", "chat_template", "chat_template_sha",
		"total_evaluation_time_seconds"} {
		assert.Contains(t, rd, k)
	}
	// asdict(GeneralConfigTracker) has had no start_time/end_time since v0.4.10.
	assert.NotContains(t, rd, "start_time")
	assert.NotContains(t, rd, "end_time")
	entry := rd["results"].(map[string]any)[task].(map[string]any)
	assert.Equal(t, task, entry["alias"])
	assert.Equal(t, task, entry["name"])
	assert.Equal(t, 4.0, entry["sample_len"])
	var scoreKeys []string
	for k, v := range mine {
		if m, _, ok := strings.Cut(k, ","); ok {
			want := v
			if v == nil {
				want = "N/A"
			}
			assert.Equal(t, want, entry[k], k)
			if !strings.HasSuffix(m, "_stderr") {
				scoreKeys = append(scoreKeys, k)
			}
		}
	}
	sort.Strings(scoreKeys)
	require.NotEmpty(t, scoreKeys)
	assert.Equal(t, map[string]any{"original": 1319.0, "effective": 4.0}, rd["n-samples"].(map[string]any)[task])
	assert.Equal(t, model, rd["model_name"])
	assert.Equal(t, strings.ReplaceAll(model, "/", "__"), rd["model_name_sanitized"])
	cfg := rd["config"].(map[string]any)
	assert.Equal(t, "pretrained="+model+",dtype=F32", cfg["model_args"])
	assert.Equal(t, 4.0, cfg["limit"])
	assert.Equal(t, 0.0, cfg["random_seed"])
	gk := cfg["gen_kwargs"].(map[string]any)
	assert.Equal(t, 0.0, gk["temperature"], "the sampler's canonical spec")

	// make_table reads the file: one row per (metric, filter), values as ours.
	rows := makeTable(t, rd)
	require.Len(t, rows, len(scoreKeys))
	for i, k := range scoreKeys {
		m, f, _ := strings.Cut(k, ",")
		assert.Equal(t, f, rows[i][2])
		assert.Equal(t, m, rows[i][4])
		assert.Equal(t, "↑", rows[i][5])
		assert.Equal(t, fmt.Sprintf("%.4f", mine[k].(float64)), rows[i][6])
	}
	assert.Equal(t, task, rows[0][0])

	// samples: one line per doc per filter, filter by filter (evaluator.py
	// loops over filters outside docs), hashes as lm-eval's hash_string.
	samples := readJSONLines(t, sampleFiles[0])
	ourLines := readJSONLines(t, filepath.Join(out, eval.SamplesFile))
	filters := map[string][]string{}
	for _, k := range scoreKeys {
		m, f, _ := strings.Cut(k, ",")
		filters[f] = append(filters[f], m)
	}
	require.Len(t, samples, 4*len(filters))
	// gsm8k-cot-zeroshot.yaml's filter_list order, not sorted.
	assert.Equal(t, []any{"strict-match", "strict-match", "strict-match", "strict-match", "flexible-extract"},
		[]any{samples[0]["filter"], samples[1]["filter"], samples[2]["filter"], samples[3]["filter"], samples[4]["filter"]})
	var hashes strings.Builder
	for i, s := range samples {
		o := ourLines[i%4]
		f := s["filter"].(string)
		require.Contains(t, filters, f)
		assert.Equal(t, o["doc_id"], s["doc_id"])
		assert.Equal(t, o["doc"], s["doc"])
		assert.Equal(t, fmt.Sprint(o["target"]), s["target"])
		args := s["arguments"].(map[string]any)["gen_args_0"].(map[string]any)
		assert.Equal(t, o["prompt"], args["arg_0"])
		kw := args["arg_1"].(map[string]any)
		assert.Equal(t, 16.0, kw["max_gen_toks"])
		assert.Contains(t, kw, "until")
		assert.Equal(t, o["resps"], s["resps"])
		assert.Equal(t, []any{o["filtered_resps"].(map[string]any)[f]}, s["filtered_resps"])
		var metrics []string
		for _, m := range s["metrics"].([]any) {
			metrics = append(metrics, m.(string))
			assert.Equal(t, o[m.(string)+","+f], s[m.(string)])
		}
		assert.ElementsMatch(t, filters[f], metrics)
		assert.Equal(t, sha256Hex(args["arg_0"].(string)), s["prompt_hash"])
		assert.Equal(t, sha256Hex(s["target"].(string)), s["target_hash"])
		// doc_hash: Python's json.dumps(doc, indent=2, ensure_ascii=False) of
		// the row in the parquet's column order (question, answer), by hand.
		doc := s["doc"].(map[string]any)
		pyText := "{\n  \"question\": " + pyQuote(doc["question"].(string)) + ",\n  \"answer\": " + pyQuote(doc["answer"].(string)) + "\n}"
		assert.Equal(t, sha256Hex(pyText), s["doc_hash"])
		hashes.WriteString(s["doc_hash"].(string) + s["prompt_hash"].(string) + s["target_hash"].(string))
	}
	assert.Equal(t, map[string]any{task: sha256Hex(hashes.String())}, rd["task_hashes"])
	raw, err := os.ReadFile(sampleFiles[0])
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"doc": {"question": `, "the doc keeps the dataset's column order, with json.dumps's separators")

	// rescore rebuilds them (and says so), leaving no stale file beside.
	var stdout strings.Builder
	require.NoError(t, runRescore(context.Background(), []string{out}, &stdout, io.Discard))
	assert.Contains(t, stdout.String(), "lm-eval files:")
	assert.Contains(t, stdout.String(), "report:")
	again, _ := filepath.Glob(filepath.Join(modelDir, "results_*.json"))
	assert.Len(t, again, 1)
}

// pyQuote is a JSON string as Python's json.dumps(ensure_ascii=False) writes
// one of GSM8K's texts (no control characters besides these).
func pyQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s) + `"`
}

// lmEvalResults runs the CLI with args and reads the one results_<date>.json
// written for greedy, seed 0.
func lmEvalResults(t *testing.T, model string, args []string) map[string]any {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args = append(args, "--output_path", out, "--log_samples", "--progress", "none")
	require.NoError(t, runRun(context.Background(), args, io.Discard, io.Discard))
	files, _ := filepath.Glob(filepath.Join(out, "lm-eval", "greedy__seed=0", strings.ReplaceAll(model, "/", "__"), "results_*.json"))
	require.Len(t, files, 1)
	var rd map[string]any
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rd))
	return rd
}

// With --apply_chat_template, results record the template text lm-eval
// records (lm.chat_template(...)) and its hash_string; without, null.
func TestE2ELMEvalChatTemplate(t *testing.T) {
	isolateDemoEnv(t)
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	model := sharedtest.Path(t, "models/tiny-llama3")
	var cfg struct {
		ChatTemplate string `json:"chat_template"`
	}
	b, err := os.ReadFile(filepath.Join(model, "tokenizer_config.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cfg))
	require.NotEmpty(t, cfg.ChatTemplate)
	base := []string{"--model", "hf", "--model_args", "pretrained=" + model + ",dtype=float32",
		"--tasks", "gsm8k_cot_zeroshot", "--dataset", data, "--limit", "1",
		"--gen_kwargs", "temperature=0,max_gen_toks=2", "--seed", "0"}
	rd := lmEvalResults(t, model, append(append([]string{}, base...), "--apply_chat_template"))
	assert.Equal(t, cfg.ChatTemplate, rd["chat_template"])
	assert.Equal(t, sha256Hex(cfg.ChatTemplate), rd["chat_template_sha"])
	rd = lmEvalResults(t, model, base)
	assert.Nil(t, rd["chat_template"])
	assert.Nil(t, rd["chat_template_sha"])
}

// With repeats, lm-eval logs one sample per doc and filter whose resps hold
// every repeat's response, and scores each doc once.
func TestE2ELMEvalRepeats(t *testing.T) {
	isolateDemoEnv(t)
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	model := sharedtest.Path(t, "models/stories260K-hf")
	out := filepath.Join(t.TempDir(), "out")
	const task = "gsm8k_cot_zeroshot"
	args := []string{"--model", "hf", "--model_args", "pretrained=" + model + ",dtype=float32",
		"--tasks", task, "--dataset", data, "--limit", "2", "--repeats", "3",
		"--gen_kwargs", "temperature=0,max_gen_toks=4", "--seed", "0",
		"--output_path", out, "--log_samples", "--progress", "none"}
	require.NoError(t, runRun(context.Background(), args, io.Discard, io.Discard))
	ours := readJSONLines(t, filepath.Join(out, eval.SamplesFile))
	require.Len(t, ours, 6)
	byDoc := map[float64][]any{}
	for _, o := range ours {
		id := o["doc_id"].(float64)
		byDoc[id] = append(byDoc[id], o["resps"].([]any)[0].([]any)[0])
	}
	modelDir := filepath.Join(out, "lm-eval", "greedy__seed=0", strings.ReplaceAll(model, "/", "__"))
	sampleFiles, _ := filepath.Glob(filepath.Join(modelDir, "samples_"+task+"_*.jsonl"))
	require.Len(t, sampleFiles, 1)
	samples := readJSONLines(t, sampleFiles[0])
	require.NotEmpty(t, samples)
	perFilter := map[string][]float64{}
	for _, s := range samples {
		resps := s["resps"].([]any)
		require.Len(t, resps, 1)
		assert.Equal(t, byDoc[s["doc_id"].(float64)], resps[0], "all three repeats, in repeat order")
		perFilter[s["filter"].(string)] = append(perFilter[s["filter"].(string)], s["exact_match"].(float64))
	}
	assert.Len(t, samples, 2*len(perFilter), "one line per doc and filter")
	files, _ := filepath.Glob(filepath.Join(modelDir, "results_*.json"))
	require.Len(t, files, 1)
	var rd map[string]any
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rd))
	entry := rd["results"].(map[string]any)[task].(map[string]any)
	assert.Equal(t, 2.0, entry["sample_len"])
	for f, vs := range perFilter {
		assert.InDelta(t, (vs[0]+vs[1])/2, entry["exact_match,"+f], 1e-12)
	}
	assert.Equal(t, map[string]any{"original": 1319.0, "effective": 2.0}, rd["n-samples"].(map[string]any)[task])
}
