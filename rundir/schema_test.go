package rundir

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schema spells each key as encoding/json writes it: a JSON tag's name,
// else the Go field's name (Shard's Index and Count, a filter pipeline's Name),
// with omitempty fields optional and pointers, slices and maps nullable.
func TestManifestSchema(t *testing.T) {
	s := ManifestSchema()
	require.Equal(t, "object", s.Type)
	task := s.Fields["task"]
	for _, k := range []string{"name", "stops", "max_new_tokens"} {
		assert.Contains(t, task.Fields, k)
	}
	assert.NotContains(t, task.Fields, "Name")
	assert.True(t, task.Fields["filters"].Optional)
	assert.Equal(t, "string", task.Fields["filters"].Items.Fields["Name"].Type)
	assert.Equal(t, map[string]Field{"Index": {Type: "number"}, "Count": {Type: "number"}}, s.Fields["shard"].Fields)
	assert.Equal(t, Field{Type: "string", Format: "date-time"}, s.Fields["started"])
	assert.Equal(t, Field{Type: "string", Format: "date-time", Optional: true, Nullable: true}, s.Fields["finished"])
	assert.Equal(t, "object", s.Fields["config"].Fields["samplers"].Items.Type)
	assert.True(t, s.Fields["config"].Fields["samplers"].Items.Open)
	assert.Equal(t, Field{Type: "any", Nullable: true}, s.Fields["samplers"].Items.Fields["description"])
	assert.Equal(t, Field{Type: "number", Optional: true, Nullable: true}, s.Fields["config"].Fields["num_fewshot"])
	var keys []string
	for k := range s.Fields {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"format", "fingerprint", "run_key", "status", "config", "code", "provenance", "backend",
		"devices", "device_names", "batch_size", "samplers", "first_token_argmax", "task", "problems", "shard", "jobs",
		"started", "finished", "stats", "merged_from"}, keys)
}
