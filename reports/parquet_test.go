package reports

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Parquet copy of each Arrow file holds the same columns in the same order,
// with the same types and nullability (int32 stays int32), the same values cell
// by cell (nulls and NaNs included), and the provenance as key-value metadata.
func TestParquetCopyEqualsArrowFile(t *testing.T) {
	dir := t.TempDir()
	prov := Provenance{RunKey: "fp@2026-11-27T00:00:00Z", SweepFingerprint: "fp", ModelSHA256: "ab", CodeRevision: "r"}
	traces := filepath.Join(dir, "traces.arrow")
	w, err := CreateTraces(traces, WithBatchRows(2), WithProvenance(prov))
	require.NoError(t, err)
	rows := sampleTraces()
	for i := range rows {
		require.NoError(t, w.Write(&rows[i]))
	}
	require.NoError(t, w.Close())
	require.NoError(t, WriteResults(filepath.Join(dir, "results.arrow"), sampleResults(), WithProvenance(prov)))
	require.NoError(t, WriteSummary(filepath.Join(dir, "summary.arrow"), sampleSummary(), WithProvenance(prov)))
	require.NoError(t, WriteComparisons(filepath.Join(dir, "comparisons.arrow"), sampleComparisons(), prov))

	for _, name := range []string{"traces", "results", "summary", "comparisons"} {
		t.Run(name, func(t *testing.T) {
			arrowPath := filepath.Join(dir, name+".arrow")
			require.NoError(t, WriteParquetCopy(arrowPath))
			assert.Equal(t, filepath.Join(dir, name+".parquet"), ParquetPath(arrowPath))
			want := readArrowTable(t, arrowPath)
			defer want.Release()

			pf, err := file.OpenParquetFile(ParquetPath(arrowPath), false)
			require.NoError(t, err)
			defer pf.Close()
			kv := pf.MetaData().KeyValueMetadata()
			for _, key := range want.Schema().Metadata().Keys() {
				v, _ := want.Schema().Metadata().GetValue(key)
				assert.Equal(t, v, *kv.FindValue(key), "metadata %s", key)
			}
			if pf.NumRowGroups() > 0 {
				cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
				require.NoError(t, err)
				assert.Equal(t, "ZSTD", cc.Compression().String())
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
			require.NoError(t, err)
			got, err := fr.ReadTable(context.Background())
			require.NoError(t, err)
			defer got.Release()

			require.Equal(t, int(want.NumCols()), int(got.NumCols()))
			for i := range int(want.NumCols()) {
				wf, gf := want.Schema().Field(i), got.Schema().Field(i)
				assert.Equal(t, wf.Name, gf.Name)
				assert.True(t, arrow.TypeEqual(wf.Type, gf.Type), "%s: %s vs %s", wf.Name, wf.Type, gf.Type)
				assert.Equal(t, wf.Nullable, gf.Nullable, wf.Name)
				wc, gc := concat(t, want.Column(i)), concat(t, got.Column(i))
				assert.True(t, array.ApproxEqual(wc, gc, array.WithNaNsEqual(true), array.WithAbsTolerance(0)), "column %s differs", wf.Name)
				wc.Release()
				gc.Release()
			}
			assert.Equal(t, want.NumRows(), got.NumRows())
		})
	}
}

func readArrowTable(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd, err := ipc.NewFileReader(f)
	require.NoError(t, err)
	defer rd.Close()
	var recs []arrow.Record
	for i := range rd.NumRecords() {
		r, err := rd.RecordAt(i)
		require.NoError(t, err)
		recs = append(recs, r)
	}
	return array.NewTableFromRecords(rd.Schema(), recs)
}

func concat(t *testing.T, c *arrow.Column) arrow.Array {
	t.Helper()
	a, err := array.Concatenate(c.Data().Chunks(), memory.NewGoAllocator())
	require.NoError(t, err)
	return a
}
