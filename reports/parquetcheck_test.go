package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// duckQuery runs sql in DuckDB (npm @duckdb/node-api, reports/parquetcheck), an
// independent Parquet reader, as a notebook would. Without the install the test
// skips, unless ENTROPIX_PARQUETCHECK=1 (CI), where that is a failure.
func duckQuery(t *testing.T, sql string) (cols []struct{ Name, Type string }, rows [][]any) {
	t.Helper()
	required := os.Getenv("ENTROPIX_PARQUETCHECK") == "1"
	unavailable := func(why string) {
		if required {
			t.Fatalf("ENTROPIX_PARQUETCHECK=1 but %s (run: npm ci --prefix reports/parquetcheck)", why)
		}
		t.Skipf("%s; set up with: npm ci --prefix reports/parquetcheck", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join("parquetcheck", "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		unavailable("reports/parquetcheck/node_modules is not installed")
	}
	out, err := exec.Command(node, filepath.Join("parquetcheck", "query.mjs"), sql).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("duckdb: %s\n%s", err, ee.Stderr)
	}
	require.NoError(t, err)
	var res struct {
		Columns []struct{ Name, Type string }
		Rows    [][]any
	}
	require.NoError(t, json.Unmarshal(out, &res))
	return res.Columns, res.Rows
}

// duckType is the DuckDB type of each Arrow type the files use.
var duckType = map[arrow.Type]string{arrow.INT32: "INTEGER", arrow.INT64: "BIGINT", arrow.FLOAT64: "DOUBLE",
	arrow.STRING: "VARCHAR", arrow.BOOL: "BOOLEAN"}

// DuckDB reads every Parquet copy with the Arrow file's columns, in order, with
// the same types, and the same values cell by cell (the join of a real run's
// files is cmd/entropix-eval's TestNotebookRecipes).
func TestParquetFilesReadByDuckDB(t *testing.T) {
	dir := t.TempDir()
	prov := Provenance{RunKey: "fp@2026-11-27T00:00:00Z", SweepFingerprint: "fp"}
	traces, results := sampleTraces(), sampleResults()
	require.NoError(t, WriteTraces(filepath.Join(dir, "traces.arrow"), traces, WithProvenance(prov)))
	require.NoError(t, WriteResults(filepath.Join(dir, "results.arrow"), results, WithProvenance(prov)))
	require.NoError(t, WriteSummary(filepath.Join(dir, "summary.arrow"), sampleSummary(), WithProvenance(prov)))
	require.NoError(t, WriteComparisons(filepath.Join(dir, "comparisons.arrow"), sampleComparisons(), prov))
	want := map[string][][]any{
		"traces": cells(traceColumns, traces), "results": cells(testResultColumns(), results),
		"summary": cells(summaryColumns, sampleSummary()), "comparisons": cells(comparisonColumns, sampleComparisons()),
	}
	for name, wantCells := range want {
		arrowPath := filepath.Join(dir, name+".arrow")
		require.NoError(t, WriteParquetCopy(arrowPath))
		table := readArrowTable(t, arrowPath)
		cols, rows := duckQuery(t, fmt.Sprintf("SELECT * FROM read_parquet('%s')", ParquetPath(arrowPath)))
		require.Len(t, cols, int(table.NumCols()), name)
		for i, c := range cols {
			f := table.Schema().Field(i)
			assert.Equal(t, f.Name, c.Name, "%s column %d", name, i)
			assert.Equal(t, duckType[f.Type.ID()], c.Type, "%s.%s", name, f.Name)
		}
		table.Release()
		require.Len(t, rows, len(wantCells), name)
		for r := range rows {
			for c := range rows[r] {
				assert.True(t, sameCell(wantCells[r][c], rows[r][c]), "%s row %d %s: wrote %v, DuckDB read %v", name, r, cols[c].Name, wantCells[r][c], rows[r][c])
			}
		}
	}
}

// sameCell compares a written cell with DuckDB's JSON of it: integers may come
// as strings (BIGINT), non-finite floats as strings, NaN/null as null.
func sameCell(wrote, read any) bool {
	switch w := wrote.(type) {
	case nil:
		return read == nil
	case string:
		if w == "NaN" || w == "-0" {
			f, ok := asFloat(read)
			return read == nil || (ok && (math.IsNaN(f) || f == 0))
		}
		return read == w
	case bool:
		return read == w
	}
	wf, ok := asFloat(wrote)
	rf, ok2 := asFloat(read)
	return ok && ok2 && (wf == rf || math.IsNaN(wf) && math.IsNaN(rf))
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
