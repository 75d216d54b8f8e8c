package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
)

// scoredSample is the part of a samples.jsonl line a scored task adds.
type scoredSample struct {
	Arguments [][]string `json:"arguments"`
	Resps     [][2]any   `json:"resps"`
}

func (s scoredSample) ll(i int) float64  { return s.Resps[i][0].(float64) }
func (s scoredSample) greedy(i int) bool { return s.Resps[i][1].(bool) }
func (s scoredSample) lls(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = s.ll(i)
	}
	return out
}

// runScoredTask runs a test task of testdata/loglik on stories260K-hf (a real
// model with a SentencePiece tokenizer that adds BOS) and returns its
// results.json entry and samples.
func runScoredTask(t *testing.T, task string, extra ...string) (string, map[string]any, []scoredSample) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--task", filepath.Join("testdata/loglik", task+".yaml"),
		"--progress", "none", "--out", out, "--max-seq-len", "64"}, extra...)
	require.NoError(t, runQuiet(t, context.Background(), args))
	var res eval.ResultsJSON
	b, err := os.ReadFile(filepath.Join(out, eval.ResultsJSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	entry := res.Results[task+"|"+eval.ScoredSampler+"/seed=0"]
	require.NotNil(t, entry, "one run: %v", res.Order)
	f, err := os.Open(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	defer f.Close()
	var samples []scoredSample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s scoredSample
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s))
		samples = append(samples, s)
	}
	return out, entry, samples
}

func argmaxOf(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestRunScoredMultipleChoice: the ARC-shaped task's requests are lm-eval's
// (context, " " + choice) pairs plus the context-free ones acc_mutual_info
// needs, and every metric is what its definition gives on the logged
// log-likelihoods, worked out here: golds are all 0.
func TestRunScoredMultipleChoice(t *testing.T) {
	out, entry, samples := runScoredTask(t, "arc_tiny")
	require.Len(t, samples, 3)
	assert.Equal(t, [][]string{{"Question: Once upon a\nAnswer:", " time"}, {"Question: Once upon a\nAnswer:", " dog"},
		{"Question: Once upon a\nAnswer:", " blue sky"}, {"", " time"}, {"", " dog"}, {"", " blue sky"}}, samples[0].Arguments)
	assert.Equal(t, []string{"Question: Which one says \"moo\"?\nAnswer:", " the \"sun\""}, samples[2].Arguments[2])
	choices := [][]string{{"time", "dog", "blue sky"}, {"mom", "xylophone"}, {"a cow", "a car", "the \"sun\"", "it's a rock"}}
	var acc, accNorm, mi, brier []float64
	for d, s := range samples {
		n := len(choices[d])
		lls := s.lls(n)
		norm := make([]float64, n)
		pmi := make([]float64, n)
		for i, c := range choices[d] {
			norm[i] = lls[i] / float64(len([]rune(c)))
			pmi[i] = lls[i] - s.ll(n+i)
		}
		acc = append(acc, b2f(argmaxOf(lls) == 0))
		accNorm = append(accNorm, b2f(argmaxOf(norm) == 0))
		mi = append(mi, b2f(argmaxOf(pmi) == 0))
		z, m := 0.0, lls[argmaxOf(lls)]
		for _, l := range lls {
			z += math.Exp(l - m)
		}
		sq := 0.0
		for i, l := range lls {
			p := math.Exp(l-m) / z
			if i == 0 {
				p--
			}
			sq += p * p
		}
		brier = append(brier, sq)
	}
	for key, want := range map[string]float64{"acc,none": meanOf(acc), "acc_norm,none": meanOf(accNorm),
		"acc_mutual_info,none": meanOf(mi), "brier_score,none": meanOf(brier)} {
		assert.InDelta(t, want, entry[key], 1e-12, key)
	}
	assert.Nil(t, entry["brier_score_stderr,none"], "lm-eval has no stderr for brier_score")

	// results.arrow keeps the per-doc 0/1 metrics, the predicted choice as the response.
	rows, err := reports.ReadResults(filepath.Join(out, eval.ResultsArrow))
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, []reports.ScoreKey{"acc,none", "acc_norm,none", "acc_mutual_info,none"}, reports.ScoreKeys(rows))
	assert.Equal(t, choices[0][argmaxOf(samples[0].lls(3))], rows[0].Response)

	// The choices share their context through the prefix cache.
	m, err := eval.ReadManifest(out)
	require.NoError(t, err)
	assert.Less(t, m.Stats.PrefillComputed, m.Stats.PromptTokens/2)
}

// TestRunScoredBatchInvariant: the log-likelihoods are the same bits one
// sequence at a time, in 4-token chunks and without the prefix cache, and
// with two workers sharing the questions.
func TestRunScoredBatchInvariant(t *testing.T) {
	_, _, want := runScoredTask(t, "mmlu_tiny")
	for _, extra := range [][]string{{"--batch-size", "1"}, {"--prefill-chunk", "4", "--no-prefix-cache"}, {"--devices", "cpu,cpu"}} {
		_, _, got := runScoredTask(t, "mmlu_tiny", extra...)
		assert.Equal(t, want, got, "%v", extra)
	}
	// An MMLU question's four choices end on the same token: one sequence each.
	require.Len(t, want, 3)
	assert.Len(t, want[0].Arguments, 4)
	assert.Equal(t, " B", want[0].Arguments[1][1])
}

// TestRunScoredLoglikelihood: LAMBADA's last word, perplexity = exp(−mean
// log-likelihood), acc = is_greedy. The TinyStories model completes "Lily went
// to the park with her" with " mom" greedily.
func TestRunScoredLoglikelihood(t *testing.T) {
	out, entry, samples := runScoredTask(t, "lambada_tiny")
	require.Len(t, samples, 3)
	assert.Equal(t, " mom", samples[0].Arguments[0][1])
	assert.True(t, samples[0].greedy(0), "' mom' is the model's greedy continuation")
	var lls, acc []float64
	for _, s := range samples {
		lls, acc = append(lls, s.ll(0)), append(acc, b2f(s.greedy(0)))
	}
	assert.InDelta(t, math.Exp(-meanOf(lls)), entry["perplexity,none"], 1e-12)
	assert.InDelta(t, meanOf(acc), entry["acc,none"], 1e-12)
	assert.NotNil(t, entry["perplexity_stderr,none"], "perplexity's stderr is bootstrapped")

	// lm-eval's samples line for doc 0, assembled by hand as json.dumps writes
	// it after save_results_samples' sanitize_list.
	const text = "Once upon a time, there was a little girl named Lily. She loved to play with her toys. One day, Lily went to the park with her mom"
	ctx := text[:len(text)-len(" mom")]
	ll := pyfloat.Repr(samples[0].ll(0))
	want := `{"doc_id": 0, "doc": {"text": "` + text + `"}, "target": " mom", "arguments": {"gen_args_0": {"arg_0": "` + ctx + `", "arg_1": " mom"}}, ` +
		`"resps": [[["` + ll + `", "True"]]], "filtered_resps": [["` + ll + `", "True"]], "filter": "none", "metrics": ["perplexity", "acc"], ` +
		`"doc_hash": "` + sha256Hex("{\n  \"text\": \""+text+"\"\n}") + `", "prompt_hash": "` + sha256Hex(ctx) + `", "target_hash": "` + sha256Hex(" mom") + `", ` +
		`"perplexity": ` + ll + `, "acc": 1.0}`
	lm, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_lambada_tiny_*.jsonl"))
	require.Len(t, lm, 1)
	b, err := os.ReadFile(lm[0])
	require.NoError(t, err)
	assert.Equal(t, want, strings.SplitN(string(b), "\n", 2)[0])
}

// TestRunScoredRolling: wikitext's perplexities weigh the documents'
// log-likelihoods by their words (re.split(r"\s+"): 68 and 15) and UTF-8
// bytes (302 and 65); at max length 64 the first document takes several
// windows.
func TestRunScoredRolling(t *testing.T) {
	out, entry, samples := runScoredTask(t, "wikitext_tiny")
	require.Len(t, samples, 2)
	ll := samples[0].ll(0) + samples[1].ll(0)
	assert.InDelta(t, math.Exp(-ll/(68+15)), entry["word_perplexity,none"], 1e-12)
	assert.InDelta(t, math.Exp(-ll/(302+65)), entry["byte_perplexity,none"], 1e-12)
	assert.InDelta(t, -ll/(302+65)/math.Ln2, entry["bits_per_byte,none"], 1e-12)
	assert.NoFileExists(t, filepath.Join(out, "report.html"), "no per-doc score to report on")
	lm, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_wikitext_tiny_*.jsonl"))
	require.Len(t, lm, 1)
	b, err := os.ReadFile(lm[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"word_perplexity": [`+pyfloat.Repr(samples[0].ll(0))+`, 68]`)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestRunScoredMMLUSampleLine: the MMLU-shaped task's first lm-eval samples
// line, assembled by hand: the 5-shot prompt (description, first_n shots
// answered by their choice letter), one request per letter, resps and
// filtered_resps as sanitize_list writes them, the hashes of the doc
// (json.dumps indent=2), the context and str(target).
func TestRunScoredMMLUSampleLine(t *testing.T) {
	out, _, samples := runScoredTask(t, "mmlu_tiny")
	shot := func(q, a, b, c, d, answer string) string {
		return q + "\nA. " + a + "\nB. " + b + "\nC. " + c + "\nD. " + d + "\nAnswer: " + answer + "\n\n"
	}
	ctx := "The following are multiple choice questions (with answers) about stories.\n\n" +
		shot("What did the dog say?", "Woof", "Moo", "Tweet", "Quack", "A") +
		shot("Where do fish live?", "In a tree", "In the water", "In a car", "In a box", "B") +
		shot("What color is the sun?", "Green", "Blue", "Yellow", "Black", "C") +
		shot("Who reads books to kids at night?", "A fish", "A rock", "A cloud", "Mom", "D") +
		shot("What do you use to eat soup?", "A spoon", "A shoe", "A hat", "A ball", "A") +
		"What did the cat say?\nA. Meow\nB. Woof\nC. Moo\nD. Oink\nAnswer:"
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var args, resps, filtered []string
	for i, letter := range []string{"A", "B", "C", "D"} {
		require.Equal(t, []string{ctx, " " + letter}, samples[0].Arguments[i])
		args = append(args, fmt.Sprintf(`"gen_args_%d": {"arg_0": %s, "arg_1": " %s"}`, i, js(ctx), letter))
		tuple := `["` + pyfloat.Repr(samples[0].ll(i)) + `", "` + map[bool]string{true: "True", false: "False"}[samples[0].greedy(i)] + `"]`
		resps, filtered = append(resps, "["+tuple+"]"), append(filtered, tuple)
	}
	acc := "0.0"
	if argmaxOf(samples[0].lls(4)) == 0 {
		acc = "1.0"
	}
	doc := "{\n  \"question\": \" What did the cat say? \",\n  \"subject\": \"stories\",\n  \"choices\": [\n    \"Meow\",\n    \"Woof\",\n    \"Moo\",\n    \"Oink\"\n  ],\n  \"answer\": 0\n}"
	want := `{"doc_id": 0, "doc": {"question": " What did the cat say? ", "subject": "stories", "choices": ["Meow", "Woof", "Moo", "Oink"], "answer": 0}, ` +
		`"target": "0", "arguments": {` + strings.Join(args, ", ") + `}, "resps": [` + strings.Join(resps, ", ") + `], ` +
		`"filtered_resps": [` + strings.Join(filtered, ", ") + `], "filter": "none", "metrics": ["acc"], ` +
		`"doc_hash": "` + sha256Hex(doc) + `", "prompt_hash": "` + sha256Hex(ctx) + `", "target_hash": "` + sha256Hex("0") + `", "acc": ` + acc + `}`
	lm, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_mmlu_tiny_*.jsonl"))
	require.Len(t, lm, 1)
	b, err := os.ReadFile(lm[0])
	require.NoError(t, err)
	assert.Equal(t, want, strings.SplitN(string(b), "\n", 2)[0])
}

// TestRunScoredShardsMerge: two shards merged give the unsharded run's
// results.json, and rescoring changes nothing.
func TestRunScoredShardsMerge(t *testing.T) {
	whole, _, _ := runScoredTask(t, "lambada_tiny")
	s0, _, _ := runScoredTask(t, "lambada_tiny", "--shard", "0/2")
	s1, _, _ := runScoredTask(t, "lambada_tiny", "--shard", "1/2")
	merged := filepath.Join(t.TempDir(), "merged")
	require.NoError(t, runMerge(context.Background(), []string{"--out", merged, s0, s1}, io.Discard, io.Discard))
	want, err := os.ReadFile(filepath.Join(whole, eval.ResultsJSONFile))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(merged, eval.ResultsJSONFile))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	require.NoError(t, runRescore(context.Background(), []string{merged}, io.Discard, io.Discard))
	again, err := os.ReadFile(filepath.Join(merged, eval.ResultsJSONFile))
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))
}
