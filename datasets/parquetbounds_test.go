package datasets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zstdBomb is a GSM8K-layout Parquet file of rows strings of n bytes each
// (its pages compress to little; its statistics keep the strings whole).
func zstdBomb(t *testing.T, rows, n int) []byte {
	t.Helper()
	big := strings.Repeat("a", n)
	ps := make([]Problem, rows)
	for i := range ps {
		ps[i] = Problem{Question: big, Answer: "1"}
	}
	var b bytes.Buffer
	require.NoError(t, WriteParquet(&b, ps, &parquet.Zstd))
	return b.Bytes()
}

// What a Parquet file's pages declare they decompress to is bounded per page
// and per file before any page is decompressed (a 17 KB zstd file took
// 1.08 GB). The bounds are lowered here so the bombs stay small.
func TestParquetDecompressedSizeIsBounded(t *testing.T) {
	defer func(p int32, total int64) { maxParquetPageBytes, maxParquetTotalBytes = p, total }(maxParquetPageBytes, maxParquetTotalBytes)
	maxParquetPageBytes, maxParquetTotalBytes = 1<<20, 64<<20
	page := zstdBomb(t, 1, 2<<20)
	_, err := ReadParquet("page.parquet", bytes.NewReader(page), int64(len(page)))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "page.parquet: row group 0, column 0, page 0: ")
	assert.ErrorContains(t, err, "declares 2097")

	maxParquetPageBytes, maxParquetTotalBytes = 8<<20, 4<<20
	total := zstdBomb(t, 8, 900<<10)
	_, err = ReadParquet("total.parquet", bytes.NewReader(total), int64(len(total)))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "uncompressed (at most 4194304)")

	fine := zstdBomb(t, 2, 100<<10)
	ps, err := ReadParquet("fine.parquet", bytes.NewReader(fine), int64(len(fine)))
	require.NoError(t, err)
	assert.Len(t, ps, 2)
}
