package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file of 200,000 columns (CSV) or a row of 1,000,000 keys (JSONL) is
// refused at once with the count; both ran past 60 s (a quadratic key
// lookup). Below the bound, a wide row is read in linear time.
func TestColumnCountIsBounded(t *testing.T) {
	dir := t.TempDir()
	cols := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	files := map[string]string{
		"wide.csv":   cols(200_000, func(i int) string { return fmt.Sprintf("c%d", i) }) + "\n" + cols(200_000, func(int) string { return "1" }) + "\n",
		"wide.jsonl": "{" + cols(1_000_000, func(i int) string { return fmt.Sprintf("\"k%d\":1", i) }) + "}\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		start := time.Now()
		_, err := LoadDocs(path)
		require.ErrorIs(t, err, ErrTooLarge, name)
		assert.ErrorContains(t, err, "columns: field too large (at most 10000)")
		assert.Less(t, time.Since(start), 5*time.Second, name)
	}

	// 10,000 columns, the most allowed, are read (a second or so).
	path := filepath.Join(dir, "ok.jsonl")
	row := "{" + cols(MaxColumns, func(i int) string { return fmt.Sprintf("\"k%d\":%d", i, i) }) + "}\n"
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat(row, 5)), 0o644))
	start := time.Now()
	ds, err := LoadDocs(path)
	require.NoError(t, err)
	assert.Len(t, ds.Problems, 5)
	assert.Len(t, ds.Problems[0].Columns, MaxColumns)
	assert.Equal(t, "k0", ds.Problems[0].Columns[0].Name, "the file's order")
	assert.Less(t, time.Since(start), 5*time.Second)
}
