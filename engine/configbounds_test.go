package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A config.json of far more layers than the weights hold is refused from the
// weights' real tensor count, before the expected tensors are listed: with
// num_hidden_layers 1000000 it took 65 s and 4.0 GB to say so.
func TestHugeLayerCountRefusedBeforeTensorSpecs(t *testing.T) {
	src := sharedtest.Path(t, "models/stories260K-hf")
	dir := t.TempDir()
	for _, f := range []string{ConfigFile, SafetensorsFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		if f == ConfigFile {
			var c map[string]any
			require.NoError(t, json.Unmarshal(b, &c))
			c["num_hidden_layers"] = 1000000
			b, err = json.Marshal(c)
			require.NoError(t, err)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Load(dir)
	require.ErrorContains(t, err, "config.json implies 9000002 tensors (num_hidden_layers 1000000)")
	assert.ErrorContains(t, err, "hold 47")
	assert.Less(t, time.Since(start), time.Second)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}

func TestExpectedTensorCountIsTheListsLength(t *testing.T) {
	for _, c := range []Config{
		{Layers: 3, TiedEmbedding: true},
		{Layers: 2, QKVBias: true},
		{Layers: 1, OBias: true, QKVBias: true},
	} {
		assert.Equal(t, len(c.ExpectedTensors()), c.ExpectedTensorCount(), "%+v", c)
	}
}
