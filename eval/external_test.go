package eval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseExternalResponses(t *testing.T) {
	got, err := parseExternalResponses("r.jsonl", strings.NewReader("{\"doc_index\": 1, \"response\": \"x\"}\n\n{\"doc_index\": 0, \"response\": \"y\", \"repeat\": 2}\n"))
	require.NoError(t, err)
	assert.Equal(t, []ExternalResponse{{DocIndex: 1, Response: "x"}, {DocIndex: 0, Response: "y", Repeat: 2}}, got)
	for _, tc := range []struct{ in, want string }{
		{`{"doc_index": 0}`, "r.jsonl:1: want doc_index and response"},
		{`{"doc_index": 0, "response": "a", "text": 1}`, `r.jsonl:1: unknown field "text"`},
		{`{"doc_index": -1, "response": "a"}`, "must not be negative"},
		{`{"doc_index": "0", "response": "a"}`, "r.jsonl:1:"},
		{"", "r.jsonl: no responses"},
	} {
		_, err := parseExternalResponses("r.jsonl", strings.NewReader(tc.in))
		assert.ErrorContains(t, err, tc.want, tc.in)
	}
}

// The responses parser never panics; what it accepts has the fields set.
func FuzzExternalResponses(f *testing.F) {
	f.Add("{\"doc_index\": 1, \"response\": \"x\"}\n")
	f.Add("{\"doc_index\": 1e3, \"response\": null}\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseExternalResponses("r.jsonl", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range got {
			if r.DocIndex < 0 || r.Repeat < 0 {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
