package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadFiles checks every case of ../shared/data/bad/README.md: the error
// names the file (and the column / row / line where one applies), no rows come
// back, and nothing panics.
func TestBadFiles(t *testing.T) {
	tests := []struct {
		file     string
		sentinel error
		mention  []string // substrings the message must contain besides the file name
	}{
		{"truncated-half.parquet", ErrNotParquet, []string{"magic footer"}},
		{"bad-magic.parquet", ErrNotParquet, []string{"magic"}},
		{"empty.parquet", ErrNotParquet, []string{"too small"}},
		{"missing-answer-column.parquet", ErrMissingColumn, []string{`column "answer"`, `columns found: "question"`}},
		{"question-int64.parquet", ErrColumnType, []string{`column "question"`, "INT64", "expected string"}},
		{"null-answers.parquet", ErrNull, []string{`column "answer"`, "rows 3, 17, 42"}},
		{"broken-line.jsonl", ErrSyntax, []string{"broken-line.jsonl:5:", "unexpected end of JSON input"}},
		{"empty.jsonl", ErrNoRows, []string{"empty file (0 rows)"}},
	}
	dir := sharedtest.Path(t, "data/bad")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			ps, err := LoadFile(path)
			require.Error(t, err)
			assert.Nil(t, ps)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.Contains(t, err.Error(), tt.file)
			for _, m := range tt.mention {
				assert.Contains(t, err.Error(), m)
			}
			// Through Load (the glob path) the same error comes back.
			_, err = Load(path)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.Contains(t, err.Error(), tt.file)
		})
	}
}

func TestBadZeroRows(t *testing.T) {
	dir := sharedtest.Path(t, "data/bad")
	zero := filepath.Join(dir, "zero-rows.parquet")

	ps, err := LoadFile(zero) // a valid file: not a parse error
	require.NoError(t, err)
	assert.Empty(t, ps)

	_, err = Load(zero) // but nothing to evaluate as a whole dataset
	require.ErrorIs(t, err, ErrNoRows)
	assert.Contains(t, err.Error(), "zero-rows.parquet")
	assert.Contains(t, err.Error(), "0 rows")
}

func TestBadZeroRowsAsShard(t *testing.T) {
	// An empty first shard before one with rows: it contributes nothing and the
	// doc ids start at 0 in the next shard. Symlinks keep the data in ../shared.
	dir := t.TempDir()
	require.NoError(t, os.Symlink(sharedtest.Path(t, "data/bad/zero-rows.parquet"), filepath.Join(dir, "test-00000-of-00002.parquet")))
	require.NoError(t, os.Symlink(sharedtest.Path(t, "data/gsm8k/sample/test-50.parquet"), filepath.Join(dir, "test-00001-of-00002.parquet")))
	ds, err := Load(SplitGlob(filepath.Dir(dir), filepath.Base(dir), "test"))
	require.NoError(t, err)
	require.Len(t, ds.Files, 2)
	assert.Equal(t, 0, ds.Files[0].Rows)
	assert.Equal(t, 50, ds.Files[1].Rows)
	want := referenceRows(t, sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"))
	assertSameRows(t, want, ds.Problems)
}

func TestBadNoFinalAnswer(t *testing.T) {
	ps, err := LoadFile(sharedtest.Path(t, "data/bad/no-final-answer.parquet"))
	require.NoError(t, err)
	require.Len(t, ps, 10)
	assert.Equal(t, []int{1, 4, 8}, InvalidTargets(ps))
	want := map[int]string{0: "18", 2: "70000", 3: "540", 5: "64", 6: "260", 7: "160", 9: "460"}
	for i, p := range ps {
		if w, ok := want[i]; ok {
			assert.True(t, p.TargetValid, "row %d", i)
			assert.Equal(t, w, p.Target, "row %d", i)
		} else {
			assert.False(t, p.TargetValid, "row %d", i)
			assert.Empty(t, p.Target, "row %d: the number must not be guessed", i)
		}
	}
}

func TestBadBOMCRLF(t *testing.T) {
	ps, err := LoadFile(sharedtest.Path(t, "data/bad/bom-crlf.jsonl"))
	require.NoError(t, err)
	want := referenceRows(t, sharedtest.Path(t, "data/gsm8k/test.jsonl"))[:10]
	assertSameRows(t, want, ps)
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "nothing-*.parquet"))
	assert.ErrorContains(t, err, "no files match")
	_, err = Load(filepath.Join(dir, "missing.jsonl"))
	assert.ErrorContains(t, err, "missing.jsonl")
	_, err = LoadFile(filepath.Join(dir, "data.txt"))
	assert.ErrorIs(t, err, ErrFormat)
}
