package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A typo in a sweep file is named in the file's terms: path, line, the key it
// most likely meant, and the keys a sweep file takes (not a Go type).
func TestConfigUnknownKeyNamesFileLineAndKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	require.NoError(t, os.WriteFile(path, []byte("model: m\ntask: gsm8k_cot\nlimits: 5\nsamplers: [greedy]\nseed: [1]\n"), 0o644))
	_, err := LoadConfig(path)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, path+": line 3: unknown key limits (did you mean limit?)")
	assert.Contains(t, msg, "line 5: unknown key seed (did you mean seeds?)")
	assert.Contains(t, msg, "a sweep file's keys are: name, model,")
	assert.NotContains(t, msg, "eval.Config")
	assert.Contains(t, ConfigKeys(), "max_new_tokens")
}
