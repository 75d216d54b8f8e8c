package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The GSM8K layout reads through the same reader as task docs, so a CSV file
// loads as a split too, with the strict checks every format gets: the
// column named, then the row.
func TestLoadGSM8KLayoutFromCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	ok := write("ok.csv", "id,question,answer\n7,What is 2+2?,\"2+2=4\n#### 4\"\n8,And 3+3?,no final line\n")
	ds, err := Load(ok)
	require.NoError(t, err)
	require.Len(t, ds.Problems, 2)
	p := ds.Problems[0]
	assert.Equal(t, "What is 2+2?", p.Question)
	assert.Equal(t, "4", p.Target)
	assert.True(t, p.TargetValid)
	assert.Equal(t, Doc{"id": int64(7), "question": "What is 2+2?", "answer": "2+2=4\n#### 4"}, p.Doc, "every column kept")
	assert.Equal(t, []string{"id", "question", "answer"}, p.Columns.Names(), "the header's order")
	assert.False(t, ds.Problems[1].TargetValid)

	for _, tc := range []struct {
		name, text string
		sentinel   error
		want       string
	}{
		{"missing.csv", "question\nq\n", ErrMissingColumn, `missing.csv: column "answer": missing column (columns found: "question")`},
		{"int.csv", "question,answer\n1,#### 1\n2,#### 2\n", ErrColumnType, `int.csv: column "question": not a string column: row 0 is integer, expected string`},
		{"null.csv", "question,answer\na,#### 1\nb,\nc,\n", ErrNull, `null.csv: column "answer": null value in rows 1, 2 (2 NULLs)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(write(tc.name, tc.text))
			require.ErrorIs(t, err, tc.sentinel)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// One JSONL line decoder for both paths: docs get the strict path's UTF-8
// check and its wording of a syntax error.
func TestJSONLDocsStrictLikeGSM8K(t *testing.T) {
	_, err := parseJSONLDocs("d.jsonl", []byte("{\"q\": \"ok\"}\n{\"q\": \"bad \xff\"}\n"), nil)
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.ErrorContains(t, err, "d.jsonl:2:")
	_, err = parseJSONLDocs("d.jsonl", []byte("{\"q\": \"ok\"}\n{\"q\": \"cut\n"), nil)
	require.ErrorIs(t, err, ErrSyntax)
	assert.EqualError(t, err, "d.jsonl:2: invalid JSON: unexpected end of JSON input")
	rows, err := parseJSONLDocs("d.jsonl", []byte("{\"b\": 1, \"a\": {\"y\": 2.5, \"x\": null}}\n{\"a\": {}, \"c\": \"s\"}\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, rows.fields.Names(), "the first line's key order")
	assert.Equal(t, []Doc{{"b": int64(1), "a": map[string]any{"y": 2.5, "x": nil}}, {"a": map[string]any{}, "c": "s"}}, rows.docs)
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]fileFormat{
		"a.parquet": formatParquet, "A.PQ": formatParquet, "a.jsonl": formatJSONL, "a.ndjson": formatJSONL,
		"a.csv": formatCSV, "cache-train.arrow": formatArrow, "a.json": "", "a": "",
	} {
		assert.Equal(t, want, formatOf(path), path)
	}
}
