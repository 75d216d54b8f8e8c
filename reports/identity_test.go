package reports

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestModelName(t *testing.T) {
	for _, tc := range []struct{ path, name, rev string }{
		{"/hf/hub/models--HuggingFaceTB--SmolLM2-135M-Instruct/snapshots/12fd25f7", "HuggingFaceTB/SmolLM2-135M-Instruct", "12fd25f7"},
		{"/models/Llama-3.2-1B-Instruct/", "Llama-3.2-1B-Instruct", ""},
		{"models/fixture-llama", "fixture-llama", ""},
		{"", "", ""},
	} {
		name, rev := ModelName(tc.path)
		assert.Equal(t, tc.name, name, tc.path)
		assert.Equal(t, tc.rev, rev, tc.path)
	}
}

// The canonical spec is the description with its keys sorted, else the spec,
// else the label: equal for equal samplers however their JSON was ordered.
func TestCanonicalSpec(t *testing.T) {
	for _, tc := range []struct {
		name              string
		description, spec string
		want              string
	}{
		{"description wins", `{"temperature":1,"name":"min_p","min_p":0.1}`, `{"name":"min_p"}`, `spec:{"min_p":0.1,"name":"min_p","temperature":1}`},
		{"spec when no description", ``, `{"name":"greedy"}`, `spec:{"name":"greedy"}`},
		{"a string description is skipped", `"greedy decoding"`, `{"name":"greedy"}`, `spec:{"name":"greedy"}`},
		{"neither", ``, ``, `label:x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, CanonicalSpec("x", json.RawMessage(tc.description), json.RawMessage(tc.spec)))
		})
	}
}
