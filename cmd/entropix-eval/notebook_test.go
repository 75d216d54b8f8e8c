package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// duckDB returns a function that runs one SQL statement in DuckDB (npm
// @duckdb/node-api through reports/parquetcheck/query.mjs, in the working
// directory of the call) and returns its rows as DuckDB's JSON conversion writes
// them. Without DuckDB the test skips, unless ENTROPIX_PARQUETCHECK=1 (CI).
func duckDB(t *testing.T) func(sql string) [][]any {
	t.Helper()
	node, err := exec.LookPath("node")
	dir, absErr := filepath.Abs(filepath.Join("..", "..", "reports", "parquetcheck"))
	require.NoError(t, absErr)
	_, statErr := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	if err != nil || statErr != nil {
		if os.Getenv("ENTROPIX_PARQUETCHECK") == "1" {
			t.Fatalf("ENTROPIX_PARQUETCHECK=1 but node or reports/parquetcheck/node_modules is missing (npm ci --prefix reports/parquetcheck)")
		}
		t.Skip("DuckDB not installed: npm ci --prefix reports/parquetcheck")
	}
	return func(sql string) [][]any {
		t.Helper()
		out, err := exec.Command(node, filepath.Join(dir, "query.mjs"), sql).CombinedOutput()
		require.NoError(t, err, "%s\n%s", sql, out)
		var res struct{ Rows [][]any }
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		return res.Rows
	}
}

// TestNotebookRecipes runs the SQL recipes of docs/notebooks.md on a real run's
// Parquet files through DuckDB (npm @duckdb/node-api, reports/parquetcheck): the
// accuracy per sampler, and every response joined to its tokens on the
// documented key.
func TestNotebookRecipes(t *testing.T) {
	query := duckDB(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "notebooks.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.Len(t, blocks, 3, "docs/notebooks.md's SQL recipes")

	dir := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir)))
	run := func(sql string) [][]any { return query(strings.ReplaceAll(sql, "runs/smol", dir)) }
	perSampler := run(blocks[0][1])
	require.Len(t, perSampler, 2, "greedy and min_p")
	for _, row := range perSampler {
		assert.Equal(t, "6", row[2], "3 problems × 2 seeds: %v", row)
	}
	joined := run(blocks[1][1])
	assert.Len(t, joined, 12, "every response has its tokens")
	for _, row := range joined {
		assert.NotEqual(t, "0", row[len(row)-1])
	}

	// Two nights whose min_p changed under one label stay two groups.
	nights := t.TempDir()
	for i, minP := range []string{"0.1", "0.05"} {
		require.NoError(t, runQuiet(t, context.Background(), []string{
			"--model", sharedtest.Path(t, "models/stories260K-hf"), "--task", "gsm8k_cot_zeroshot",
			"--dataset", sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"),
			"--sampler", "min_p:label=min_p,min_p=" + minP, "--limit", "2", "--max-new-tokens", "4",
			"--progress", "none", "--out", filepath.Join(nights, fmt.Sprintf("night-%d", i))}))
	}
	rows := query(strings.ReplaceAll(blocks[2][1], "runs/*", filepath.Join(nights, "*")))
	require.Len(t, rows, 2, "one group per spec: %v", rows)
	for _, row := range rows {
		assert.Equal(t, "stories260K-hf", row[1])
		assert.Equal(t, "min_p", row[2])
		assert.Equal(t, "2", row[5], "2 problems × 1 seed")
	}
	assert.NotEqual(t, rows[0][3], rows[1][3])
	assert.Contains(t, rows[0][3], `"min_p":0.05`)
	assert.Contains(t, rows[1][3], `"min_p":0.1`)
}

// datasets convert turns a run's Arrow file into the same Parquet file run
// writes beside it: columns, order, types and metadata kept.
func TestDatasetsConvertArrowKeepsTheLayout(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir)))
	out := filepath.Join(t.TempDir(), "traces.parquet")
	require.NoError(t, datasetsConvert([]string{filepath.Join(dir, "traces.arrow"), out}, io.Discard))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(dir, "traces.parquet"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
