package reports

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileVersion reads an Arrow file's schema version metadata.
func fileVersion(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	require.NoError(t, err)
	defer r.Close()
	v, _ := r.Schema().Metadata().GetValue(metaVersion)
	return v
}

// sampleListResults are result rows with list scores (IFEval's shape): two
// keys, a row without them, an empty list.
func sampleListResults() []ResultRow {
	rows := sampleResults()[:3]
	rows[0].Lists = []ListScore{{Metric: "inst_acc", Filter: "none", Values: []float64{1, 0, 1}}, {Metric: "inst_acc", Filter: "loose", Values: []float64{}}}
	rows[2].Lists = []ListScore{{Metric: "inst_acc", Filter: "none", Values: []float64{0.5}}}
	return rows
}

// List scores round-trip as nullable list<double> columns after the score
// columns; a file with one is version 7, one without stays version 6.
func TestListScoresRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := sampleResults()[:3]
	plain := filepath.Join(dir, "plain.arrow")
	require.NoError(t, WriteResults(plain, rows))
	assert.Equal(t, SchemaVersion, fileVersion(t, plain))

	rows = sampleListResults()
	path := filepath.Join(dir, "results.arrow")
	require.NoError(t, WriteResults(path, rows))
	assert.Equal(t, SchemaVersionLists, fileVersion(t, path))
	assert.Equal(t, []ScoreKey{"inst_acc,none", "inst_acc,loose"}, LayoutOf(rows).Lists)

	got, err := ReadResults(path)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i := range rows {
		assert.Equal(t, rows[i].Scores, got[i].Scores, "row %d", i)
		assert.Equal(t, rows[i].Lists, got[i].Lists, "row %d", i)
	}
	v, ok := got[1].List("inst_acc,none")
	assert.False(t, ok, "a row without the list reads null: %v", v)
	assert.Equal(t, ScoreKeys(rows), ScoreKeys(got), "lists are no per-problem scores")

	schema, err := ResultSchema(LayoutOf(rows))
	require.NoError(t, err)
	n := len(schema.Fields())
	tail := len(resultTail)
	assert.Equal(t, "inst_acc,none", schema.Field(n-tail-2).Name)
	assert.Equal(t, "list<float64>", typeName(schema.Field(n-tail-2).Type))
	assert.True(t, schema.Field(n-tail-2).Nullable)

	// The Parquet copy keeps the lists (DuckDB reads them as DOUBLE[]).
	require.NoError(t, WriteParquetCopy(path))
}
