package datasets

import (
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
