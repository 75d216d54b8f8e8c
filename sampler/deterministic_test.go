package sampler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A baseline is deterministic exactly when it takes the greedy path (temperature
// 0, or below vLLM's greedy threshold in its order), whatever its filters say.
func TestBaselineDeterministic(t *testing.T) {
	for _, tc := range []struct {
		spec map[string]any
		want bool
	}{
		{map[string]any{"name": "greedy"}, true},
		{map[string]any{"name": "combined", "temperature": 0.0, "top_p": 0.9}, true},
		{map[string]any{"name": "combined", "order": "vllm-v1", "temperature": 1e-6}, true},
		{map[string]any{"name": "min_p"}, false},
		{map[string]any{"name": "top_k", "top_k": 1}, false}, // draws (from one token): not declared
		{map[string]any{"name": "temperature", "temperature": 0.01}, false},
	} {
		s, err := ParseConfig(tc.spec)
		require.NoError(t, err, "%v", tc.spec)
		smp, err := s.New(nil)
		require.NoError(t, err)
		d, ok := smp.(interface{ Deterministic() bool })
		require.True(t, ok)
		assert.Equal(t, tc.want, d.Deterministic(), "%v", tc.spec)
	}
}
