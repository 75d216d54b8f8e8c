package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestDatasetsInspectAnyLayout inspects the shared tasks' data files, each in
// its dataset's real column layout.
func TestDatasetsInspectAnyLayout(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want []string
	}{
		{"tasks/data/cais/mmlu/anatomy/test-00000-of-00001.parquet", []string{
			"answer    INT64", "choices", "first 1 rows", "    subject   anatomy", `    choices   ["`, "ok: every column is set in every row"}},
		{"tasks/data/allenai/ai2_arc/ARC-Challenge/test-00000-of-00001.parquet", []string{
			"answerKey", `    choices    {"label":["A","B","C","D"],"text":[`, "ok: every column"}},
		{"tasks/data/SaylorTwift/bbh/boolean_expressions/test-00000-of-00001.parquet", []string{"    input   ", "    target  "}},
		{"tasks/data/Idavidrein/gpqa/gpqa_main.csv", []string{
			"gpqa_main.csv  csv", "Incorrect Answer 1", "string", `column "Canary String": NULL or missing in`}},
	} {
		t.Run(filepath.Base(tc.rel), func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, runDatasets([]string{"inspect", "-n", "1", sharedtest.Path(t, tc.rel)}, &out))
			for _, w := range tc.want {
				assert.Contains(t, out.String(), w)
			}
			assert.NotContains(t, out.String(), "#### N", "not read as GSM8K")
		})
	}
}

// TestDatasetsConvertAnyLayout converts MMLU and ARC Parquet to JSONL and
// back to Parquet; every doc reads back equal to the shared file's.
func TestDatasetsConvertAnyLayout(t *testing.T) {
	for _, rel := range []string{
		"tasks/data/cais/mmlu/anatomy/test-00000-of-00001.parquet",
		"tasks/data/allenai/ai2_arc/ARC-Challenge/test-00000-of-00001.parquet",
		"tasks/data/Idavidrein/gpqa/gpqa_main.csv",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			src := sharedtest.Path(t, rel)
			dir := t.TempDir()
			jl, pq := filepath.Join(dir, "x.jsonl"), filepath.Join(dir, "x.parquet")
			var out bytes.Buffer
			require.NoError(t, runDatasets([]string{"convert", src, jl}, &out))
			require.NoError(t, runDatasets([]string{"convert", jl, pq}, &out))
			want, err := datasets.LoadDocs(src)
			require.NoError(t, err)
			for _, p := range []string{jl, pq} {
				got, err := datasets.LoadDocs(p)
				require.NoError(t, err)
				require.Len(t, got.Problems, len(want.Problems))
				for i := range want.Problems {
					assert.Equal(t, want.Problems[i].Doc, got.Problems[i].Doc, "%s doc %d", filepath.Base(p), i)
				}
			}
		})
	}
	src := sharedtest.Path(t, "tasks/data/cais/mmlu/anatomy/test-00000-of-00001.parquet")
	jl := filepath.Join(t.TempDir(), "mmlu.jsonl")
	var out bytes.Buffer
	require.NoError(t, runDatasets([]string{"convert", src, jl}, &out))
	assert.Contains(t, out.String(), "(columns question, subject, choices, answer)", "the input's column order")
	b, err := os.ReadFile(jl)
	require.NoError(t, err)
	assert.Regexp(t, `^\{"question":"[^"]*","subject":"anatomy","choices":\[`, string(b))
}
