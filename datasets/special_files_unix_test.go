//go:build unix

package datasets

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A data file must be a regular file: a link to /dev/zero was read until
// memory ran out (3.4 GB), and a FIFO named .jsonl blocked the open forever.
func TestDataFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.jsonl")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	parquet := filepath.Join(dir, "zero.parquet")
	require.NoError(t, os.Symlink("/dev/zero", parquet))
	for _, path := range []string{zero, fifo, parquet, filepath.Join(dir, "zero.csv"), filepath.Join(dir, "zero.arrow")} {
		if _, err := os.Lstat(path); err != nil {
			require.NoError(t, os.Symlink("/dev/zero", path))
		}
		start := time.Now()
		_, err := LoadDocs(path)
		require.ErrorIs(t, err, ErrFormat, path)
		assert.ErrorContains(t, err, "not a regular file")
		assert.Less(t, time.Since(start), time.Second)
	}
	_, err := DescribeFile(parquet)
	assert.ErrorContains(t, err, "not a regular file")
}
