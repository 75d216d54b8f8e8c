package runreport

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The report names the attention statistics each sampler read (an Entropix
// variant's own view, the sweep's attn_mode for the rest) and the GPU names.
func TestManifestViewNamesViewsAndDevices(t *testing.T) {
	raw := []byte(`{"config":{"attn_mode":"masked"},"backend":"cuda","devices":["cuda:0"],
	  "device_names":["NVIDIA H100 80GB HBM3"],
	  "samplers":[{"label":"greedy","description":{"name":"greedy"}},
	    {"label":"entropix:frog","description":{"name":"entropix","attn_mode":"padded","pad_len":4096}},
	    {"label":"smol-masked","description":{"name":"entropix","attn_mode":"masked","pad_len":2048}}]}`)
	r := &run{}
	require.NoError(t, json.Unmarshal(raw, &r.manifest))
	got := map[string]string{}
	for _, kv := range r.manifestView().Highlights {
		got[kv.Key] = kv.Value
	}
	assert.Equal(t, "entropix:frog: padded over 4096 slots; smol-masked: masked; others: masked", got["attention statistics"])
	assert.Equal(t, "cuda cuda:0 (NVIDIA H100 80GB HBM3)", got["backend"])
}
