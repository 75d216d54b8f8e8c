package cuda

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// The inverse frequencies must equal the goldens' (the reference's, float64), which
// include tiny-llama3's three llama3 scaling bands.
func TestRopeInvFreqMatchesGoldens(t *testing.T) {
	for _, name := range []string{"stories260K-hf", "tiny-llama3", "tiny-qwen2", "tiny-smollm2", "tiny-llama-untied"} {
		var g struct {
			ModelDir    string             `json:"model_dir"`
			RopeInvFreq []sharedtest.Float `json:"rope_inv_freq"`
		}
		sharedtest.ReadJSON(t, filepath.Join("golden/models", name+".json"), &g)
		cfg, err := engine.LoadConfig(filepath.Join(sharedtest.Path(t, g.ModelDir), engine.ConfigFile))
		require.NoError(t, err, name)
		got, err := engine.RopeInvFreq(&cfg)
		require.NoError(t, err, name)
		require.Len(t, got, len(g.RopeInvFreq), name)
		for i, w := range g.RopeInvFreq {
			require.InDelta(t, float64(w), got[i], 1e-7*math.Abs(float64(w))+1e-12, "%s inv_freq[%d]", name, i)
		}
	}
}

func TestRopeTableLayout(t *testing.T) {
	c := engine.Config{HeadDim: 4, RopeTheta: 100}
	tab, err := ropeTable(&c, 3)
	require.NoError(t, err)
	require.Len(t, tab, 3*2*2)
	// Position 2, pair 1: angle 2 · 100^(-2/4) = 0.2; entries are (cos, sin).
	require.InDelta(t, math.Cos(0.2), tab[(2*2+1)*2], 1e-7)
	require.InDelta(t, math.Sin(0.2), tab[(2*2+1)*2+1], 1e-7)
	require.Equal(t, float32(1), tab[0])

	c.HeadDim = 5
	_, err = ropeTable(&c, 3)
	require.ErrorContains(t, err, "even")
	c.HeadDim, c.RopeScaling = 4, &engine.RopeScaling{Type: "yarn"}
	_, err = ropeTable(&c, 3)
	require.ErrorContains(t, err, "yarn")
}
