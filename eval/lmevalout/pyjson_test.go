package lmevalout

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected texts are written by hand as Python's
// json.dumps(doc, indent=2, ensure_ascii=False) prints them.
func TestPyDumpsMatchesPython(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"column order kept", `{"question":"Q?","answer":"A #### 4"}`,
			"{\n  \"question\": \"Q?\",\n  \"answer\": \"A #### 4\"\n}"},
		{"ints, floats, bool, null", `{"n":3,"x":0.5,"big":1e16,"tiny":0.00001,"whole":2.0,"ok":true,"none":null}`,
			"{\n  \"n\": 3,\n  \"x\": 0.5,\n  \"big\": 1e+16,\n  \"tiny\": 1e-05,\n  \"whole\": 2.0,\n  \"ok\": true,\n  \"none\": null\n}"},
		{"nested and empty", `{"choices":["a","b"],"meta":{"z":1,"a":[]},"e":{}}`,
			"{\n  \"choices\": [\n    \"a\",\n    \"b\"\n  ],\n  \"meta\": {\n    \"z\": 1,\n    \"a\": []\n  },\n  \"e\": {}\n}"},
		{"non-ASCII kept, controls escaped", `{"q":"café ≥ 3 <b>\"x\"\\\u0001\t"}`,
			"{\n  \"q\": \"café ≥ 3 <b>\\\"x\\\"\\\\\\u0001\\t\"\n}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := decodeOrdered([]byte(c.in))
			require.NoError(t, err)
			got, err := pyDumps(v)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			sum := sha256.Sum256([]byte(c.want))
			assert.Equal(t, hex.EncodeToString(sum[:]), HashString(got))
		})
	}
}

func TestPyFloat(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", -2.5: "-2.5", 0.1: "0.1", 1e-4: "0.0001", 1.5e-5: "1.5e-05",
		123456789012345680: "1.2345678901234568e+17", 1e15: "1000000000000000.0", 1e16: "1e+16", 0: "0.0",
	} {
		assert.Equal(t, want, pyFloat(f), "%v", f)
	}
}

// A hand-computed doc_hash: sha256 of the two-key doc's Python text.
func TestDocHashHandDerived(t *testing.T) {
	v, err := decodeOrdered([]byte(`{"question":"1+1?","answer":"2"}`))
	require.NoError(t, err)
	text, err := pyDumps(v)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("{\n  \"question\": \"1+1?\",\n  \"answer\": \"2\"\n}"))
	assert.Equal(t, hex.EncodeToString(sum[:]), HashString(text))
}
