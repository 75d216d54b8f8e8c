package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nonFiniteRow is a dataset row with a double column of each non-finite
// kind, as a Parquet or Arrow float column can hold (and Python's json.loads
// reads from JSONL's NaN, Infinity and -Infinity).
type nonFiniteRow struct {
	Question string  `parquet:"question"`
	Score    float64 `parquet:"score"`
	Hi       float64 `parquet:"hi"`
	Lo       float64 `parquet:"lo"`
	Answer   string  `parquet:"answer"`
}

// TestNonFiniteDocFloats runs a task on a Parquet file whose doc holds NaN,
// Infinity and -Infinity and checks every file that shows the doc: lm-eval's
// samples file writes it as Python's json.dumps does (NaN, Infinity,
// -Infinity) and hashes json.dumps(doc, indent=2, ensure_ascii=False); our
// samples.jsonl writes the same literals; the prompt shows the values as
// Jinja prints a Python float (nan, inf, -inf), and so does report.html's
// problem browser. rescore reads problems.jsonl back and writes the same
// lm-eval line again.
func TestNonFiniteDocFloats(t *testing.T) {
	out := runParquetTask(t, "nonfinite", []nonFiniteRow{{Question: "Q", Score: math.NaN(), Hi: math.Inf(1), Lo: math.Inf(-1), Answer: "#### 4"}},
		"Q: {{question}} {{score}} {{hi}} {{lo}}\\nA:")

	pyText := strings.Join([]string{
		`{`,
		`  "question": "Q",`,
		`  "score": NaN,`,
		`  "hi": Infinity,`,
		`  "lo": -Infinity,`,
		`  "answer": "#### 4"`,
		`}`}, "\n")
	checkLMEval := func() {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_nonfinite_*.jsonl"))
		require.Len(t, files, 1)
		line := firstLine(t, files[0])
		assert.Contains(t, line, `"doc": {"question": "Q", "score": NaN, "hi": Infinity, "lo": -Infinity, "answer": "#### 4"}`)
		assert.Contains(t, line, `"doc_hash": "`+sha256Hex(pyText)+`"`)
		assert.Contains(t, line, `"arg_0": "Q: Q nan inf -inf\nA:"`)
	}
	checkLMEval()
	ours := firstLine(t, filepath.Join(out, "samples.jsonl"))
	assert.Contains(t, ours, `"doc":{"question":"Q","score":NaN,"hi":Infinity,"lo":-Infinity,"answer":"#### 4"}`)
	report, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(report), `Q: Q nan inf -inf`)

	require.NoError(t, os.RemoveAll(filepath.Join(out, "lm-eval")))
	require.NoError(t, runRescore(context.Background(), []string{out}, io.Discard, io.Discard))
	checkLMEval()
	assert.Equal(t, ours, firstLine(t, filepath.Join(out, "samples.jsonl")), "rescore writes samples.jsonl's doc back the same")
}

// The independent run checker (checkrun.mjs, JSON.parse) reads a GSM8K run
// whose docs hold NaN and ±Infinity in our samples.jsonl and problems.jsonl.
func TestCheckRunReadsNonFiniteDocs(t *testing.T) {
	node := arrowcheckNode(t)
	if node == "" {
		return
	}
	model := sharedtest.Path(t, "models/stories260K-hf")
	data := writeParquet(t, filepath.Join(t.TempDir(), "test.parquet"),
		[]nonFiniteRow{{Question: "Q", Score: math.NaN(), Hi: math.Inf(1), Lo: math.Inf(-1), Answer: "#### 4"}})
	out := t.TempDir()
	args := []string{"--model", model, "--task", "gsm8k_cot_zeroshot", "--dataset", data, "--samplers", "greedy",
		"--max-new-tokens", "2", "--progress", "none", "--out", out}
	require.NoError(t, runQuiet(t, context.Background(), args))
	assert.Contains(t, firstLine(t, filepath.Join(out, "samples.jsonl")), `"score":NaN,"hi":Infinity,"lo":-Infinity`)
	runCheckRun(t, node, out, "")
}

// datasets inspect shows a doc's non-finite floats as convert writes them.
func TestDatasetsInspectNonFinite(t *testing.T) {
	type row struct {
		Text  string  `parquet:"text"`
		Score float64 `parquet:"score"`
		Hi    float64 `parquet:"hi"`
		Lo    float64 `parquet:"lo"`
	}
	data := writeParquet(t, filepath.Join(t.TempDir(), "test.parquet"), []row{{"T", math.NaN(), math.Inf(1), math.Inf(-1)}})
	var out bytes.Buffer
	require.NoError(t, runDatasets([]string{"inspect", "-n", "1", data}, &out))
	for _, w := range []string{"    text   T\n", "    score  NaN\n", "    hi     Infinity\n", "    lo     -Infinity\n"} {
		assert.Contains(t, out.String(), w)
	}
}
