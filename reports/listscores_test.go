package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
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

// readResultBytes reads a results file image as ReadResults reads a file:
// its layout, list columns included, from its schema.
func readResultBytes(b []byte) ([]ResultRow, error) {
	r, err := newRowReader(bytes.NewReader(b), int64(len(b)), "mem.arrow", KindResults, func(s *arrow.Schema) ([]column[ResultRow], error) {
		return resultColumns(layoutOfSchema(s))
	}, checkResultRow)
	if err != nil {
		return nil, err
	}
	return collect(r)
}

// A damaged list column (offsets past its values, any flipped byte) is an
// error, never a panic or a read outside the file.
func TestReadListsSurvivesEveryByteFlip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.arrow")
	require.NoError(t, WriteResults(path, sampleListResults()))
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	rows, err := readResultBytes(orig)
	require.NoError(t, err)
	require.Equal(t, sampleListResults()[0].Lists, rows[0].Lists)
	for i := range orig {
		b := append([]byte(nil), orig...)
		b[i] ^= 0xff
		require.NotPanics(t, func() { _, _ = readResultBytes(b) }, "byte %d", i)
	}
}

func FuzzReadListResults(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.arrow")
	if err := WriteResults(seed, sampleListResults()); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readResultBytes(data)
		if err != nil {
			return
		}
		for i := range rows {
			for _, l := range rows[i].Lists {
				if l.Values == nil {
					t.Fatalf("row %d: list %s read as nil, not empty", i, l.Key())
				}
			}
		}
	})
}
