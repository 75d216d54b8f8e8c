package datasets

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadDocsKeepsColumnOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl": "{\"zeta\":1,\"alpha\":\"x\",\"mid\":2.0}\n{\"zeta\":2,\"alpha\":\"y\",\"mid\":0.5,\"extra\":true}\n",
		"b.csv":   "zeta,alpha,mid\n1,x,2.5\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	for name, want := range map[string][][]string{
		"a.jsonl": {{"zeta", "alpha", "mid"}, {"zeta", "alpha", "mid", "extra"}},
		"b.csv":   {{"zeta", "alpha", "mid"}},
	} {
		ds, err := LoadDocs(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Len(t, ds.Problems, len(want))
		for i, p := range ds.Problems {
			assert.Equal(t, want[i], p.Columns.Names(), name)
		}
	}
}

func TestEncodeDocRoundTrip(t *testing.T) {
	d := Doc{"zeta": int64(1), "alpha": "<a>", "mid": 2.0, "n": nil, "list": []any{int64(1), 0.5}}
	b, err := EncodeDoc(d, FieldsOf("zeta", "alpha", "mid", "gone"))
	require.NoError(t, err)
	assert.Equal(t, `{"zeta":1,"alpha":"<a>","mid":2.0,"list":[1,0.5],"n":null}`, string(b))
	back, err := DecodeDoc(b)
	require.NoError(t, err)
	assert.Equal(t, d, back)
}

// A float column can hold NaN and ±Inf (Parquet, Arrow; JSONL through
// Python's json.loads): EncodeDoc writes them as json.dumps does, and a JSONL
// file holding them loads them back as floats.
func TestNonFiniteFloats(t *testing.T) {
	d := Doc{"q": "NaN", "nan": math.NaN(), "inf": math.Inf(1), "neg": []any{math.Inf(-1), 1e-05}}
	b, err := EncodeDoc(d, FieldsOf("q", "nan", "inf", "neg"))
	require.NoError(t, err)
	assert.Equal(t, `{"q":"NaN","nan":NaN,"inf":Infinity,"neg":[-Infinity,1e-05]}`, string(b))
	back, err := DecodeDoc(b)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(back["nan"].(float64)))
	assert.Equal(t, math.Inf(1), back["inf"])
	assert.Equal(t, []any{math.Inf(-1), 1e-05}, back["neg"])
	assert.Equal(t, "NaN", back["q"])

	path := filepath.Join(t.TempDir(), "nan.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"question": "Q", "answer": "A", "x": NaN, "y": [Infinity, -Infinity]}`+"\n"), 0o644))
	ds, err := LoadDocs(path)
	require.NoError(t, err)
	require.Len(t, ds.Problems, 1)
	doc := ds.Problems[0].Doc
	assert.True(t, math.IsNaN(doc["x"].(float64)))
	assert.Equal(t, []any{math.Inf(1), math.Inf(-1)}, doc["y"])
	assert.Equal(t, []string{"question", "answer", "x", "y"}, ds.Problems[0].Columns.Names())
	info, err := DescribeFile(path)
	require.NoError(t, err)
	assert.Equal(t, []ColumnInfo{{Name: "question", Type: "string"}, {Name: "answer", Type: "string"},
		{Name: "x", Type: "a number"}, {Name: "y", Type: "an array"}}, info.Columns)
	for _, bad := range []string{`{"x": nan}`, `{"x": NaN1}`, `{"x": -NaN}`} {
		require.NoError(t, os.WriteFile(path, []byte(bad+"\n"), 0o644))
		_, err := LoadDocs(path)
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
}
