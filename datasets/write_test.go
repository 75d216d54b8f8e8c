package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteJSONLReproducesOpenAIFiles(t *testing.T) {
	root := sharedtest.Path(t, "data/gsm8k")
	for _, split := range []string{"test", "train"} {
		ds, err := Load(SplitGlob(root, "main", split))
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, WriteJSONL(&buf, ds.Problems))
		want, err := os.ReadFile(filepath.Join(root, split+".jsonl"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, buf.Bytes()), "%s: Parquet -> JSONL is not byte-identical to the original", split)
	}
}

func TestWriteParquetRoundTrip(t *testing.T) {
	ds, err := Load(sharedtest.Path(t, "data/gsm8k/test.jsonl"))
	require.NoError(t, err)
	for _, codec := range []struct {
		name  string
		codec compress.Codec
	}{{"SNAPPY", &parquet.Snappy}, {"ZSTD", &parquet.Zstd}} {
		t.Run(codec.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "test-00000-of-00001.parquet")
			fh, err := os.Create(path)
			require.NoError(t, err)
			require.NoError(t, WriteParquet(fh, ds.Problems, codec.codec))
			require.NoError(t, fh.Close())

			back, err := LoadFile(path)
			require.NoError(t, err)
			require.Len(t, back, len(ds.Problems))
			for i := range back {
				require.Equal(t, ds.Problems[i].Question, back[i].Question, "row %d", i)
				require.Equal(t, ds.Problems[i].Answer, back[i].Answer, "row %d", i)
			}

			info, err := DescribeFile(path)
			require.NoError(t, err)
			assert.Equal(t, int64(1319), info.Rows)
			assert.Contains(t, info.Metadata, "huggingface")
			require.Len(t, info.Columns, 2)
			for i, name := range []string{"question", "answer"} {
				assert.Equal(t, name, info.Columns[i].Name)
				assert.Equal(t, "BYTE_ARRAY (UTF8, STRING)", info.Columns[i].Type)
				assert.True(t, info.Columns[i].Optional)
				assert.Equal(t, codec.name, info.Columns[i].Compression)
			}
		})
	}
}

func TestDescribeForeignFiles(t *testing.T) {
	root := sharedtest.Path(t, "data")
	tests := []struct {
		path      string
		rows      int64
		groups    int
		createdBy string
		colType   string
		codec     string
		meta      []string
	}{
		{"gsm8k/main/test-00000-of-00001.parquet", 1319, 1, "DuckDB", "BYTE_ARRAY (UTF8)", "SNAPPY", []string{"huggingface"}},
		{"gsm8k/variants/test-zstd-rg256.parquet", 1319, 6, "parquet-rs", "BYTE_ARRAY (UTF8, STRING)", "ZSTD", []string{"ARROW:schema"}},
	}
	for _, tt := range tests {
		info, err := DescribeFile(filepath.Join(root, tt.path))
		require.NoError(t, err)
		assert.Equal(t, tt.rows, info.Rows, tt.path)
		assert.Equal(t, tt.groups, info.RowGroups, tt.path)
		assert.Contains(t, info.CreatedBy, tt.createdBy, tt.path)
		assert.Equal(t, tt.meta, info.Metadata, tt.path)
		require.Len(t, info.Columns, 2)
		assert.Equal(t, tt.colType, info.Columns[0].Type, tt.path)
		assert.Equal(t, tt.codec, info.Columns[0].Compression, tt.path)
	}

	info, err := DescribeFile(filepath.Join(root, "bad/question-int64.parquet"))
	require.NoError(t, err)
	assert.Equal(t, "INT64 (INT_64)", info.Columns[0].Type)

	info, err = DescribeFile(filepath.Join(root, "gsm8k/sample/test-50.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, int64(50), info.Rows)
	assert.Equal(t, []ColumnInfo{{Name: "question", Type: "string"}, {Name: "answer", Type: "string"}}, info.Columns)
}

func TestValidate(t *testing.T) {
	ps, err := LoadFile(sharedtest.Path(t, "data/bad/no-final-answer.parquet"))
	require.NoError(t, err)
	assert.Equal(t, []string{`3 problem(s) without a "#### N" final answer (never scored correct): doc 1, 4, 8`}, Validate(ps))

	synthetic := []Problem{
		{Question: "a", Answer: "#### 1", TargetValid: true},
		{Question: " ", Answer: "#### 2", TargetValid: true},
		{Question: "a", Answer: "#### 3", TargetValid: true},
	}
	assert.Equal(t, []string{"1 problem(s) with an empty question: doc 1", "repeated questions (doc=earlier doc): 2=0"}, Validate(synthetic))
}
