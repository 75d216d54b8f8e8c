package history

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DuckDB (npm @duckdb/node-api, reports/parquetcheck), an independent reader,
// runs docs/sweeps.md's query on history.parquet and sees the table's rows.
func TestHistoryReadByDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	query := filepath.Join("..", "parquetcheck", "query.mjs")
	_, statErr := os.Stat(filepath.Join("..", "parquetcheck", "node_modules", "@duckdb", "node-api"))
	if err != nil || statErr != nil {
		if os.Getenv("ENTROPIX_PARQUETCHECK") == "1" {
			t.Fatalf("ENTROPIX_PARQUETCHECK=1 but node or reports/parquetcheck/node_modules is missing (npm ci --prefix reports/parquetcheck)")
		}
		t.Skip("DuckDB not installed: npm ci --prefix reports/parquetcheck")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "sweeps.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("`(SELECT [^`]*history\\.parquet[^`]*)`").FindSubmatch(doc)
	require.NotNil(t, m, "docs/sweeps.md's history query")

	out := t.TempDir()
	h, err := Update(out, threeNights(t), Options{})
	require.NoError(t, err)
	sql := strings.ReplaceAll(string(m[1]), "runs/history", out)
	b, err := exec.Command(node, query, sql).CombinedOutput()
	require.NoError(t, err, "%s\n%s", sql, b)
	var res struct {
		Columns []struct{ Name, Type string }
		Rows    [][]any
	}
	require.NoError(t, json.Unmarshal(b, &res))
	assert.Equal(t, "DATE", res.Columns[0].Type)
	var want [][]any
	for _, r := range h.Rows {
		if r.Primary {
			want = append(want, []any{r.Date.Format("2006-01-02"), r.Sampler, r.Accuracy})
		}
	}
	require.Len(t, res.Rows, len(want))
	assert.ElementsMatch(t, want, res.Rows)
}
