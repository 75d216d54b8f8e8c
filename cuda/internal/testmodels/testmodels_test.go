package testmodels

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

func TestFiles(t *testing.T) {
	require.Equal(t, []string{
		"golden/models/tiny-qwen2.json", "models/tiny-qwen2/config.json", "models/tiny-qwen2/model.safetensors",
	}, Models[2].Files())
	require.Equal(t, []string{"golden/models/stories260K-hf.json", "models/stories260K/stories260K.bin"}, Models[5].Files())
	all := Files()
	require.Len(t, all, 5*3+1, "five folders with their goldens, and the .bin sharing stories260K-hf's golden")
	require.Equal(t, "models/stories260K/stories260K.bin", all[len(all)-1])
}

// The copied files alone are enough for what the tests do with each model: load the
// checkpoint and read its golden prompts (GPU machines get only these).
func TestCopiedFilesSuffice(t *testing.T) {
	shared := sharedtest.Root(t)
	dst := t.TempDir()
	n, err := Copy(shared, dst)
	require.NoError(t, err)
	require.Greater(t, n, int64(1<<20))
	for _, m := range Models {
		model, err := engine.Load(filepath.Join(dst, m.Path))
		require.NoError(t, err, m.Name)
		require.NoError(t, model.Close())
		b, err := os.ReadFile(filepath.Join(dst, m.GoldenFile()))
		require.NoError(t, err, m.Name)
		var g struct {
			Cases []struct {
				PromptIDs []int32 `json:"prompt_ids"`
			} `json:"cases"`
		}
		require.NoError(t, json.Unmarshal(b, &g), m.Name)
		require.NotEmpty(t, g.Cases, m.Name)
		require.NotEmpty(t, g.Cases[0].PromptIDs, m.Name)
	}
}

func TestCopyNamesTheMissingFile(t *testing.T) {
	_, err := Copy(t.TempDir(), t.TempDir())
	require.ErrorContains(t, err, "copying the shared test file golden/models/stories260K-hf.json")
}
