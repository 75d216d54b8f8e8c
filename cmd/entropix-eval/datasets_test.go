package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDatasetsInspectSharded(t *testing.T) {
	glob := filepath.Join(sharedtest.Path(t, "data/gsm8k/sharded"), "test-*-of-00003.parquet")
	var out bytes.Buffer
	require.NoError(t, runDatasets([]string{"inspect", "-n", "2", glob}, &out))
	s := out.String()
	for _, want := range []string{
		"test-00000-of-00003.parquet", "test-00002-of-00003.parquet",
		"DuckDB version v1.5.6",
		"question  BYTE_ARRAY (UTF8)  optional  SNAPPY",
		"1319 rows in 3 files",
		"doc 1 (test-00000-of-00003.parquet row 1)",
		"A robe takes 2 bolts of blue fiber",
		`#### 3`,
		"target    18",
		"ok: every row has",
	} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, s, "doc 2 (", "-n 2 shows two rows")
}

func TestDatasetsInspectBad(t *testing.T) {
	dir := sharedtest.Path(t, "data/bad")
	var out bytes.Buffer
	err := runDatasets([]string{"inspect", filepath.Join(dir, "null-answers.parquet")}, &out)
	require.ErrorIs(t, err, datasets.ErrNull)
	assert.Contains(t, out.String(), `column "answer": null value in rows 3, 17, 42`)

	out.Reset()
	require.NoError(t, runDatasets([]string{"inspect", filepath.Join(dir, "no-final-answer.parquet")}, &out))
	assert.Contains(t, out.String(), `3 problem(s) without a "#### N" final answer (never scored correct): doc 1, 4, 8`)

	out.Reset()
	err = runDatasets([]string{"inspect", filepath.Join(dir, "question-int64.parquet")}, &out)
	require.ErrorIs(t, err, datasets.ErrColumnType)
	assert.Contains(t, out.String(), "question  INT64 (INT_64)")
}

func TestDatasetsConvertRoundTrip(t *testing.T) {
	src := sharedtest.Path(t, "data/gsm8k/test.jsonl")
	dir := t.TempDir()
	pq := filepath.Join(dir, "test-00000-of-00001.parquet")
	back := filepath.Join(dir, "test.jsonl")

	var out bytes.Buffer
	require.NoError(t, runDatasets([]string{"convert", "-compression", "zstd", src, pq}, &out))
	assert.Contains(t, out.String(), "wrote 1319 rows")
	require.NoError(t, runDatasets([]string{"convert", pq, back}, &out))

	want, err := os.ReadFile(src)
	require.NoError(t, err)
	got, err := os.ReadFile(back)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "JSONL -> Parquet -> JSONL must reproduce test.jsonl byte for byte")

	info, err := datasets.DescribeFile(pq)
	require.NoError(t, err)
	assert.Equal(t, "ZSTD", info.Columns[0].Compression)

	// OUT exists: refused without -force, replaced with it.
	err = runDatasets([]string{"convert", src, back}, &out)
	assert.ErrorContains(t, err, "exists")
	require.NoError(t, runDatasets([]string{"convert", "-force", pq, back}, &out))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".tmp"), "temporary file left behind: %s", e.Name())
	}
}

func TestDatasetsUsageErrors(t *testing.T) {
	var out bytes.Buffer
	tests := [][]string{
		{},
		{"frobnicate"},
		{"inspect"},
		{"convert", "only-one.jsonl"},
		{"convert", "in.jsonl", "out.csv"},
		{"convert", "-compression", "lz5", "in.jsonl", "out.parquet"},
	}
	for _, args := range tests {
		err := runDatasets(args, &out)
		assert.ErrorIs(t, err, errUsage, "%q", args)
	}
}

func TestDatasetsConvertBadInput(t *testing.T) {
	bad := sharedtest.Path(t, "data/bad/broken-line.jsonl")
	out := filepath.Join(t.TempDir(), "x.parquet")
	err := runDatasets([]string{"convert", bad, out}, &bytes.Buffer{})
	require.ErrorContains(t, err, "broken-line.jsonl:5:")
	_, statErr := os.Stat(out)
	assert.True(t, os.IsNotExist(statErr), "nothing is written for a bad input")
}
