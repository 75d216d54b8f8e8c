package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 13: a question over ~32 MB was accepted, the whole run computed, and
// then finalize and every resume failed. The limit is now checked at load,
// naming the file and the row.
func TestFieldSizeLimitAtLoad(t *testing.T) {
	dir := t.TempDir()
	line := func(q, a string) string {
		b, err := json.Marshal(map[string]string{"question": q, "answer": a})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	big := strings.Repeat("9", MaxFieldBytes+1)
	for _, tc := range []struct {
		name, content, want string
	}{
		{"question", line("ok", "#### 1") + line(big, "#### 2"), "row 1: question of 1048577 bytes"},
		{"answer", line("ok", "#### "+big), "row 0: answer of 1048582 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
			_, err := Load(path)
			require.ErrorIs(t, err, ErrTooLarge)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	ok := filepath.Join(dir, "ok.jsonl")
	require.NoError(t, os.WriteFile(ok, []byte(line(strings.Repeat("9", MaxFieldBytes), "#### 3")), 0o644))
	_, err := Load(ok)
	require.NoError(t, err, "exactly the limit is fine")

	shots := filepath.Join(dir, "shots.jsonl")
	b, err := json.Marshal(map[string]string{"question": big, "target": "1"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(shots, append(b, '\n'), 0o644))
	_, err = LoadFewshotFile(shots)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), shots)
}
