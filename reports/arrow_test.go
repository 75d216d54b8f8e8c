package reports

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cells renders rows as the writer stores them, comparable with assert.Equal:
// NaN and −0 (which == and reflect.DeepEqual mishandle) become strings.
func cells[R any](cols []column[R], rows []R) [][]any {
	out := make([][]any, len(rows))
	for i := range rows {
		for _, c := range cols {
			v := c.value(&rows[i])
			if f, ok := v.(float64); ok {
				switch {
				case math.IsNaN(f):
					v = "NaN"
				case f == 0 && math.Signbit(f):
					v = "-0"
				}
			}
			out[i] = append(out[i], v)
		}
	}
	return out
}

func TestTracesRoundTripAcrossBatches(t *testing.T) {
	for _, batch := range []int{1, 3, DefaultBatchRows} {
		path := filepath.Join(t.TempDir(), "traces.arrow")
		rows := sampleTraces()
		w, err := CreateTraces(path, WithBatchRows(batch))
		require.NoError(t, err)
		for i := range rows {
			require.NoError(t, w.Write(&rows[i]))
		}
		assert.EqualValues(t, len(rows), w.Rows())
		require.NoError(t, w.Close())

		r, err := OpenTraces(path)
		require.NoError(t, err)
		assert.Equal(t, (len(rows)+batch-1)/batch, r.NumBatches())
		var got []TraceRow
		for r.Next() {
			got = append(got, r.Row())
		}
		require.NoError(t, r.Err())
		require.NoError(t, r.Close())
		assert.Equal(t, cells(traceColumns, rows), cells(traceColumns, got), "batch %d", batch)
		assert.Equal(t, "\uFFFD", got[3].Text, "half a UTF-8 character is stored as U+FFFD")
	}
}

func TestSmallFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	results, summary, comparisons := sampleResults(), sampleSummary(), sampleComparisons()
	require.NoError(t, WriteResults(filepath.Join(dir, "results.arrow"), results))
	require.NoError(t, WriteSummary(filepath.Join(dir, "summary.arrow"), summary))
	require.NoError(t, WriteComparisons(filepath.Join(dir, "comparisons.arrow"), comparisons, Provenance{}))

	gotResults, err := ReadResults(filepath.Join(dir, "results.arrow"))
	require.NoError(t, err)
	assert.Equal(t, cells(testResultColumns(), results), cells(testResultColumns(), gotResults))
	gotSummary, err := ReadSummary(filepath.Join(dir, "summary.arrow"))
	require.NoError(t, err)
	assert.Equal(t, cells(summaryColumns, summary), cells(summaryColumns, gotSummary))
	gotComparisons, err := ReadComparisons(filepath.Join(dir, "comparisons.arrow"))
	require.NoError(t, err)
	assert.Equal(t, cells(comparisonColumns, comparisons), cells(comparisonColumns, gotComparisons))
}

func TestEmptyFileHasSchemaAndNoRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.arrow")
	require.NoError(t, WriteResults(path, nil))
	rows, err := ReadResults(path)
	require.NoError(t, err)
	assert.Empty(t, rows)
}

func TestWriterIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.arrow")
	rows := sampleResults()

	w, err := CreateResults(path, gsm8kLayout, WithBatchRows(1))
	require.NoError(t, err)
	require.NoError(t, w.Write(&rows[0]))
	require.NoError(t, w.Write(&rows[1])) // a batch is on disk, in the temporary
	assert.NoFileExists(t, path, "the file must not appear before Close")
	w.Abort()
	assert.NoFileExists(t, path)
	assertOnlyFiles(t, dir)

	require.NoError(t, WriteResults(path, rows[:1]))
	w, err = CreateResults(path, gsm8kLayout)
	require.NoError(t, err)
	require.NoError(t, w.Write(&rows[2]))
	w.Abort()
	got, err := ReadResults(path)
	require.NoError(t, err)
	assert.Len(t, got, 1, "an aborted rewrite keeps the previous file")
	assertOnlyFiles(t, dir, "results.arrow")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "published readable, not CreateTemp's 0600")
}

func TestWriterRejectsBadRowsAndDiscardsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.arrow")
	rows := sampleResults()
	rows[1].FinishReason = "timeout"
	err := WriteResults(path, rows)
	require.ErrorContains(t, err, `row 1: finish_reason "timeout"`)
	require.ErrorContains(t, err, path)
	assertOnlyFiles(t, dir)

	w, err := CreateResults(path, gsm8kLayout)
	require.NoError(t, err)
	require.Error(t, w.Write(&rows[1]))
	require.Error(t, w.Close(), "Close after a failed Write reports the failure")
	assertOnlyFiles(t, dir)

	cmp := sampleComparisons()
	cmp[0].PTest = "z"
	require.ErrorContains(t, WriteComparisons(filepath.Join(dir, "c.arrow"), cmp, Provenance{}), `p_test "z"`)
	cmp = sampleComparisons()
	cmp[1].PHolm = Some(0.5)
	require.ErrorContains(t, WriteComparisons(filepath.Join(dir, "c.arrow"), cmp, Provenance{}), "disagree on whether the row is in a Holm family")
	cmp = sampleComparisons()
	cmp[1].Alternative = "sideways"
	require.ErrorContains(t, WriteComparisons(filepath.Join(dir, "c.arrow"), cmp, Provenance{}), `alternative "sideways"`)
	sum := sampleSummary()
	sum[0].Filter = "loose"
	require.ErrorContains(t, WriteSummary(filepath.Join(dir, "s.arrow"), sum), `score "loose": want metric,filter`)
	assertOnlyFiles(t, dir)
}

func TestCreateInMissingDirectoryFails(t *testing.T) {
	_, err := CreateTraces(filepath.Join(t.TempDir(), "no", "such", "traces.arrow"))
	require.ErrorContains(t, err, "traces.arrow")
}

func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
