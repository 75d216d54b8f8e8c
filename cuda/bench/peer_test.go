//go:build !cudasim

package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hf_peer.py against stand-in torch and transformers modules (testdata/fakepy): it
// passes the dtype argument the installed transformers takes, refuses weights that did
// not load as bfloat16, and writes one JSON row per batch.
func TestPeerScript(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	fakepy, err := filepath.Abs("testdata/fakepy")
	require.NoError(t, err)
	peer := func(version string, env ...string) (string, []map[string]any, error) {
		out := filepath.Join(t.TempDir(), "peer.jsonl")
		cmd := exec.Command("python3", "hf_peer.py", "--model", "/nonexistent", "--out", out,
			"--batches", "1,3", "--new-tokens", "5", "--repeats", "2")
		cmd.Env = append(os.Environ(), "PYTHONPATH="+fakepy, "FAKE_TRANSFORMERS_VERSION="+version, "PYTHONDONTWRITEBYTECODE=1")
		cmd.Env = append(cmd.Env, env...)
		b, err := cmd.CombinedOutput()
		var rows []map[string]any
		if data, rerr := os.ReadFile(out); rerr == nil {
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var r map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &r), line)
				rows = append(rows, r)
			}
		}
		return string(b), rows, err
	}

	for _, version := range []string{"5.17.0", "4.56.0"} {
		log, rows, err := peer(version)
		require.NoError(t, err, log)
		require.Contains(t, log, "from_pretrained got ['dtype']", version)
		require.Len(t, rows, 3, "the versions line, then batch 1 and 3")
		require.Equal(t, "torch.bfloat16", rows[0]["dtype"])
		require.Equal(t, "sdpa", rows[0]["attention"])
		require.Equal(t, version, rows[0]["transformers"])
		for i, batch := range []float64{1, 3} {
			r := rows[i+1]
			require.Equal(t, batch, r["batch"])
			require.Greater(t, r["decode_tok_s"], 0.0)
			require.Greater(t, r["prefill_tok_s"], 0.0)
		}
	}

	log, _, err := peer("4.40.2")
	require.NoError(t, err, log)
	require.Contains(t, log, "from_pretrained got ['torch_dtype']")

	// A transformers that ignores the argument given loads float32: refused, not timed.
	log, rows, err := peer("5.17.0", "FAKE_DTYPE_ARGUMENT=torch_dtype")
	require.Error(t, err)
	require.Contains(t, log, "hf_peer: the model loaded as torch.float32, not bfloat16")
	require.Empty(t, rows)
}
