package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// wmtTask is lm-eval's translation task layout (wmt_common_yaml and a
// generated wmt16 file): bleu, ter and chrf, a target with a leading space.
const wmtTask = `task: wmt_toy
dataset_path: acme/wmt
test_split: test
doc_to_text: "German phrase: {{de}}\nEnglish phrase:"
doc_to_target: ' {{en}}'
metric_list:
  - metric: bleu
  - metric: ter
  - metric: chrf
generation_kwargs:
  until:
    - "\n"
  do_sample: false
repeats: 1
`

// sacrebleu's README corpus, first reference stream (textmetrics checks the
// metrics on it against sacrebleu's own vectors).
var (
	wmtRefs = []string{"The dog bit the man.", "It was not unexpected.", "The man bit him first."}
	wmtHyps = []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
)

// pyResamples are the doc indices lm-eval's bootstrap_stderr draws for
// iters resamples of n docs (chunk 0: random.Random(0).choices), from
// CPython itself.
func pyResamples(t *testing.T, n, iters int) [][]int {
	py := pythontest.Python(t)
	script := "import json, random\nr = random.Random(0)\n" +
		"print(json.dumps([r.choices(range(" + itoa(n) + "), k=" + itoa(n) + ") for _ in range(" + itoa(iters) + ")]))"
	out, err := exec.Command(py, "-c", script).Output()
	require.NoError(t, err)
	var idx [][]int
	require.NoError(t, json.Unmarshal(out, &idx))
	return idx
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// score on a translation task without Python: results.json has each corpus
// metric over the corpus (not a mean of sentence scores) with lm-eval's
// bootstrap standard error over 100 resamples; samples keep lm-eval's
// passthrough [gold, response]; the lm-eval files and the report carry
// them; rescore reproduces them.
func TestScoreCorpusMetrics(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wmt.yaml"), []byte(wmtTask), 0o600))
	var data, resp bytes.Buffer
	items := make([]textmetrics.Item, len(wmtRefs))
	for i := range wmtRefs {
		line, _ := json.Marshal(map[string]any{"de": "x", "en": wmtRefs[i]})
		data.Write(append(line, '\n'))
		line, _ = json.Marshal(map[string]any{"doc_index": i, "response": " " + wmtHyps[i]})
		resp.Write(append(line, '\n'))
		items[i] = textmetrics.Item{Refs: []string{" " + wmtRefs[i]}, Pred: " " + wmtHyps[i]}
	}
	dataPath, respPath := filepath.Join(dir, "test.jsonl"), filepath.Join(dir, "r.jsonl")
	require.NoError(t, os.WriteFile(dataPath, data.Bytes(), 0o600))
	require.NoError(t, os.WriteFile(respPath, resp.Bytes(), 0o600))
	out := filepath.Join(t.TempDir(), "run")
	var stdout bytes.Buffer
	require.NoError(t, runScore([]string{"--task", "wmt_toy", "--include-path", dir, "--dataset", dataPath, "--responses", respPath, "--out", out}, &stdout, io.Discard))

	resamples := pyResamples(t, len(items), 100)
	res := runResults(t, out)
	require.Len(t, res, 1)
	for _, rs := range res {
		assert.Equal(t, []any{"bleu,none", "ter,none", "chrf,none"}, rs["score_keys"])
		assert.Equal(t, []any{"bleu,none", "ter,none", "chrf,none"}, rs[eval.KeyCorpusAggregated])
		for _, name := range []string{"bleu", "ter", "chrf"} {
			m, _ := hooks.LookupCorpusMetric(name)
			want, err := m.Fold(items)
			require.NoError(t, err)
			assert.InDelta(t, want, rs[name+",none"], 1e-12, name)
			// The standard error: the sample standard deviation of the
			// metric over CPython's resamples.
			stats := make([]float64, len(resamples))
			for r, idx := range resamples {
				sample := make([]textmetrics.Item, len(idx))
				for k, i := range idx {
					sample[k] = items[i]
				}
				stats[r], err = m.Fold(sample)
				require.NoError(t, err)
			}
			assert.InDelta(t, sampleSD(stats), rs[name+"_stderr,none"], 1e-9, name)
		}
		// Corpus BLEU is not the mean of the sentence scores (100, ~0, ~0).
		assert.Less(t, rs["bleu,none"].(float64), 60.0)
		assert.Greater(t, rs["bleu,none"].(float64), 34.0)
	}
	b, err := os.ReadFile(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"bleu,none":[" It was not unexpected."," It wasn't surprising."]`)
	results, samples := lmEvalFiles(t, out)
	assert.Contains(t, results, `"bleu_stderr,none": `)
	assert.Contains(t, results, `"bootstrap_iters": 100000,`)
	assert.Contains(t, samples, `"metrics": ["bleu", "ter", "chrf"]`)
	assert.Contains(t, samples, `"bleu": [" It was not unexpected.", " It wasn't surprising."]`)
	assert.Contains(t, stdout.String(), "|chrf  |↑|")
	md, err := os.ReadFile(filepath.Join(out, "tables", "results.md"))
	require.NoError(t, err)
	assert.Regexp(t, `\|wmt_toy\|external\|none +\| +0\|bleu +\|↑\| *[0-9]+\.[0-9]{4}\|±\| *[0-9]+\.[0-9]{4}\|`, string(md))
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "corpus statistics (sacrebleu")

	// compare against a run whose responses are the references: each metric
	// paired over the docs (exact for three docs).
	var perfect bytes.Buffer
	perfectItems := make([]textmetrics.Item, len(wmtRefs))
	for i := range wmtRefs {
		line, _ := json.Marshal(map[string]any{"doc_index": i, "response": " " + wmtRefs[i]})
		perfect.Write(append(line, '\n'))
		perfectItems[i] = textmetrics.Item{Refs: items[i].Refs, Pred: " " + wmtRefs[i]}
	}
	perfectPath, better := filepath.Join(dir, "perfect.jsonl"), filepath.Join(t.TempDir(), "better")
	require.NoError(t, os.WriteFile(perfectPath, perfect.Bytes(), 0o600))
	require.NoError(t, runScore([]string{"--task", "wmt_toy", "--include-path", dir, "--dataset", dataPath, "--responses", perfectPath, "--out", better}, io.Discard, io.Discard))
	var cmpOut bytes.Buffer
	require.NoError(t, runCompare(context.Background(), []string{out, better}, &cmpOut, io.Discard))
	bleu, _ := hooks.LookupCorpusMetric("bleu")
	sys, err := bleu.Statistic.Segments(perfectItems)
	require.NoError(t, err)
	base, err := bleu.Statistic.Segments(items)
	require.NoError(t, err)
	ar, err := reports.PairedAR([][][]float64{sys}, [][][]float64{base}, bleu.Statistic.Score, reports.DefaultARTrials, 0)
	require.NoError(t, err)
	assert.InDelta(t, 100.0, ar.SystemScore, 1e-9) // exp(Σ log 1) rounds
	assert.Contains(t, cmpOut.String(), fmt.Sprintf("bleu,none external vs external: %.2f → 100.00 (Δ %+.2f), p = %s (paired approximate randomization, exact: all 8 patterns over 3 docs)",
		ar.BaselineScore, ar.Delta, reports.FormatP(ar.P)))

	// history indexes per-problem accuracies only, and says so for these.
	var hist bytes.Buffer
	require.NoError(t, runHistory(context.Background(), []string{"--out", t.TempDir(), out}, &hist, io.Discard))
	assert.Contains(t, hist.String(), "0 rows")
	assert.Contains(t, hist.String(), "(task wmt_toy): bleu,none, ter,none, chrf,none are computed over the corpus (no per-problem accuracy) and are not indexed")

	want := runOutputs(t, out)
	require.NoError(t, runRescore(context.Background(), []string{out}, io.Discard, io.Discard))
	assert.Equal(t, want, runOutputs(t, out), "rescored")

	// lm-eval's multiple-target path makes bleu 1.0 per doc and its
	// aggregation fails: refused, naming the metric.
	listTask := strings.Replace(wmtTask, `doc_to_target: ' {{en}}'`, `doc_to_target: "{{refs}}"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wmt.yaml"), []byte(listTask), 0o600))
	listData := filepath.Join(dir, "list.jsonl")
	require.NoError(t, os.WriteFile(listData, []byte(strings.Repeat(`{"de": "x", "refs": ["a", "b"]}`+"\n", 3)), 0o600))
	err = runScore([]string{"--task", "wmt_toy", "--include-path", dir, "--dataset", listData, "--responses", respPath, "--out", filepath.Join(t.TempDir(), "run2")}, io.Discard, io.Discard)
	assert.ErrorContains(t, err, "metric bleu needs one reference per doc, this doc has 2")
}

// sampleSD is the sample standard deviation (n − 1), lm-eval's sample_stddev.
func sampleSD(xs []float64) float64 {
	mu := 0.0
	for _, x := range xs {
		mu += x
	}
	mu /= float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mu) * (x - mu)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// The terminal's tables (--per-seed, group aggregates) write a fraction in
// percent and a corpus metric on sacrebleu's 0–100 scale.
func TestScoreWithSE(t *testing.T) {
	for _, c := range []struct {
		key   string
		v, se any
		want  string
	}{
		{"exact_match,strict-match", 0.4512, 0.0137, "45.1% ± 1.4%"},
		{"bleu,none", 45.0675, 24.9462, "45.07 ± 24.95"},
		{"ter,none", 50.0, nil, "50.00 ± n/a"},
	} {
		assert.Equal(t, c.want, scoreWithSE(reports.ScoreKey(c.key), c.v, c.se), c.key)
	}
}

// A run with two samplers on a translation task, two seeds: the report
// tests each corpus metric of min_p against greedy (paired approximate
// randomization over the docs, each doc swapped in both seeds at once,
// exact for three docs), on the [reference, response] pairs samples.jsonl
// holds.
func TestRunCorpusMetricsPairedTest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wmt.yaml"), []byte(wmtTask), 0o600))
	var data bytes.Buffer
	for i := range wmtRefs {
		line, _ := json.Marshal(map[string]any{"de": wmtHyps[i], "en": wmtRefs[i]})
		data.Write(append(line, '\n'))
	}
	dataPath := filepath.Join(dir, "test.jsonl")
	require.NoError(t, os.WriteFile(dataPath, data.Bytes(), 0o600))
	out := t.TempDir()
	var stdout bytes.Buffer
	require.NoError(t, runRun(context.Background(), []string{"--model", sharedtest.Path(t, "models/stories260K-hf"), "--include-path", dir,
		"--task", "wmt_toy", "--dataset", dataPath, "--samplers", "greedy,min_p", "--seeds", "0,1", "--max-new-tokens", "12",
		"--progress", "none", "--out", out}, &stdout, io.Discard))

	// The test's inputs, read here: each sampler's pairs per seed and doc.
	pairs := map[string][][]textmetrics.Item{} // sampler → seed → doc
	b, err := os.ReadFile(filepath.Join(out, eval.SamplesFile))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s map[string]any // a metric key holds a comma: no struct tag can name it
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		sampler, seed, doc, chrf := s["sampler"].(string), int(s["seed"].(float64)), int(s["doc_id"].(float64)), s["chrf,none"].([]any)
		if pairs[sampler] == nil {
			pairs[sampler] = make([][]textmetrics.Item, 2)
		}
		items := pairs[sampler][seed]
		for len(items) <= doc {
			items = append(items, textmetrics.Item{})
		}
		items[doc] = textmetrics.Item{Refs: []string{chrf[0].(string)}, Pred: chrf[1].(string)}
		pairs[sampler][seed] = items
	}
	st, _ := textmetrics.LMEvalStatistic("chrf")
	segments := func(sampler string) [][][]float64 {
		var out [][][]float64
		for _, items := range pairs[sampler] {
			segs, err := st.Segments(items)
			require.NoError(t, err)
			out = append(out, segs)
		}
		return out
	}
	want, err := reports.PairedAR(segments("min_p"), segments("greedy"), st.Score, reports.DefaultARTrials, 0)
	require.NoError(t, err)
	require.Equal(t, reports.CorpusARExact, want.Method)
	note := fmt.Sprintf("chrf,none: min_p vs greedy Δ %+.2f (%.2f vs %.2f), p = %s (paired approximate randomization, exact: all 8 patterns over 3 docs × 2 seeds).",
		want.Delta, want.SystemScore, want.BaselineScore, reports.FormatP(want.P))
	assert.Contains(t, stdout.String(), note)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "p = "+reports.FormatP(want.P))
}
