package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestWriteDocsRoundTrip writes the shared tasks' data files (every column
// layout: MMLU's list and int answer, ARC's struct of lists, BBH's strings,
// GPQA's CSV) to Parquet and JSONL and reads them back to the same docs.
func TestWriteDocsRoundTrip(t *testing.T) {
	for _, rel := range []string{
		"tasks/data/cais/mmlu/anatomy/test-00000-of-00001.parquet",
		"tasks/data/allenai/ai2_arc/ARC-Challenge/test-00000-of-00001.parquet",
		"tasks/data/SaylorTwift/bbh/date_understanding/test-00000-of-00001.parquet",
		"tasks/data/Idavidrein/gpqa/gpqa_main.csv",
		"data/gsm8k/sample/test-50.jsonl",
	} {
		t.Run(filepath.Base(filepath.Dir(rel)), func(t *testing.T) {
			src, err := LoadDocs(sharedtest.Path(t, rel))
			require.NoError(t, err)
			var docs []Doc
			for _, p := range src.Problems {
				docs = append(docs, p.Doc)
			}
			dir := t.TempDir()
			var pq, jl bytes.Buffer
			require.NoError(t, WriteDocsParquet(&pq, docs, &parquet.Zstd))
			require.NoError(t, WriteDocsJSONL(&jl, docs, nil))
			for name, b := range map[string][]byte{"x.parquet": pq.Bytes(), "x.jsonl": jl.Bytes()} {
				p := filepath.Join(dir, name)
				require.NoError(t, os.WriteFile(p, b, 0o644))
				back, err := LoadDocs(p)
				require.NoError(t, err, name)
				require.Len(t, back.Problems, len(docs), name)
				for i, d := range docs {
					assert.Equal(t, d, back.Problems[i].Doc, "%s row %d", name, i)
				}
			}
		})
	}
}

func TestWriteDocsJSONLKeyOrder(t *testing.T) {
	var b bytes.Buffer
	docs := []Doc{{"b": "x<y", "a": int64(1), "c": nil}, {"a": int64(2), "z": []any{"p", true}}}
	require.NoError(t, WriteDocsJSONL(&b, docs, FieldsOf("b")))
	assert.Equal(t, "{\"b\":\"x<y\",\"a\":1,\"c\":null}\n{\"a\":2,\"z\":[\"p\",true]}\n", b.String())
	b.Reset()
	docs = []Doc{{"s": map[string]any{"text": "t", "answer_start": int64(3)}}}
	require.NoError(t, WriteDocsJSONL(&b, docs, Fields{{Name: "s", Sub: FieldsOf("text", "answer_start")}}))
	assert.Equal(t, "{\"s\":{\"text\":\"t\",\"answer_start\":3}}\n", b.String(), "a struct's fields in the file's order")
}

func TestWriteDocsParquetRefusesMixedTypes(t *testing.T) {
	err := WriteDocsParquet(&bytes.Buffer{}, []Doc{{"a": "x"}, {"a": int64(1)}}, &parquet.Snappy)
	assert.ErrorContains(t, err, `column "a": mixed value types string and int64`)
}

// TestWriteDocsParquetZeroValues: 0, "", false and an empty list are values,
// not NULLs (parquet-go writes an optional field's zero value as NULL).
func TestWriteDocsParquetZeroValues(t *testing.T) {
	docs := []Doc{
		{"i": int64(0), "s": "", "b": false, "f": 0.0, "l": []any{}, "st": map[string]any{"x": int64(0)}},
		{"i": nil, "s": nil, "b": nil, "f": nil, "l": nil, "st": nil},
	}
	var b bytes.Buffer
	require.NoError(t, WriteDocsParquet(&b, docs, &parquet.Snappy))
	p := filepath.Join(t.TempDir(), "z.parquet")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	back, err := LoadDocs(p)
	require.NoError(t, err)
	assert.Equal(t, docs[0], back.Problems[0].Doc)
	assert.Equal(t, docs[1], back.Problems[1].Doc)
}
