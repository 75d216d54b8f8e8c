package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

type orderSpan struct {
	Text  string `parquet:"text"`
	Start int32  `parquet:"answer_start"`
}

// orderRow's struct fields are not in name order, as SQuAD's answers
// {text, answer_start}.
type orderRow struct {
	Question string      `parquet:"question"`
	Meta     orderSpan   `parquet:"meta"`
	Spans    []orderSpan `parquet:"spans,list"`
	Answer   string      `parquet:"answer"`
}

// TestLMEvalSamplesKeepNestedFieldOrder runs a task on a Parquet file with a
// struct column and a list of structs and checks lm-eval's samples file
// shows the doc as Python's json.dumps of the datasets row would: nested
// fields in the file's order (text before answer_start), not sorted, in the
// line and in the doc_hash (json.dumps(doc, indent=2, ensure_ascii=False)).
func TestLMEvalSamplesKeepNestedFieldOrder(t *testing.T) {
	out := runParquetTask(t, "nested_order", []orderRow{{Question: "Q", Meta: orderSpan{"t", 3}, Spans: []orderSpan{{"x", 1}}, Answer: "#### 4"}},
		"Q: {{question}}\\nA:")
	files, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_nested_order_*.jsonl"))
	require.Len(t, files, 1)
	line := firstLine(t, files[0])
	assert.Contains(t, line, `"doc": {"question": "Q", "meta": {"text": "t", "answer_start": 3}, "spans": [{"text": "x", "answer_start": 1}], "answer": "#### 4"}`)
	pyText := strings.Join([]string{
		`{`,
		`  "question": "Q",`,
		`  "meta": {`,
		`    "text": "t",`,
		`    "answer_start": 3`,
		`  },`,
		`  "spans": [`,
		`    {`,
		`      "text": "x",`,
		`      "answer_start": 1`,
		`    }`,
		`  ],`,
		`  "answer": "#### 4"`,
		`}`}, "\n")
	assert.Contains(t, line, `"doc_hash": "`+sha256Hex(pyText)+`"`)
}

// runParquetTask writes rows as a Parquet file, runs the task name on it
// (docToText, a YAML double-quoted string, is its prompt; the target is the
// answer column after "####") with the greedy sampler, and returns the run
// directory.
func runParquetTask[T any](t *testing.T, name string, rows []T, docToText string) string {
	t.Helper()
	isolateDemoEnv(t)
	model := sharedtest.Path(t, "models/stories260K-hf")
	dir := t.TempDir()
	data := writeParquet(t, filepath.Join(dir, "test.parquet"), rows)
	y := fmt.Sprintf("task: %s\ndataset_path: parquet\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
		"doc_to_text: \"%s\"\ndoc_to_target: \"{{answer.split('####')[-1].strip()}}\"\n"+
		"generation_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 2\n", name, data, docToText)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(y), 0o644))
	out := t.TempDir()
	args := []string{"--model", model, "--include-path", dir, "--task", name,
		"--samplers", "greedy", "--progress", "none", "--out", out}
	require.NoError(t, runRun(context.Background(), args, io.Discard, io.Discard))
	return out
}

// writeParquet writes rows as the Parquet file path and returns path.
func writeParquet[T any](t *testing.T, path string, rows []T) string {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := parquet.NewGenericWriter[T](f)
	_, err = w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return path
}

// firstLine is a JSON Lines file's first line.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	require.True(t, sc.Scan(), path)
	return sc.Text()
}
