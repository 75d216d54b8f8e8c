package datasets

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDemoSplit: the embedded split loads like any JSONL file, every problem has
// a "#### N" target, and the written file reads back the same problems.
func TestDemoSplit(t *testing.T) {
	ps, err := LoadDemo()
	require.NoError(t, err)
	require.Len(t, ps, 12)
	require.Empty(t, InvalidTargets(ps))

	dir := t.TempDir()
	path, err := WriteDemo(dir)
	require.NoError(t, err)
	ds, err := Load(path)
	require.NoError(t, err)
	require.Len(t, ds.Problems, len(ps))
	for i := range ps {
		require.Equal(t, ps[i].Question, ds.Problems[i].Question)
		require.Equal(t, ps[i].Target, ds.Problems[i].Target)
	}

	// Writing again over the same bytes is a no-op; other bytes are replaced.
	again, err := WriteDemo(dir)
	require.NoError(t, err)
	require.Equal(t, path, again)
	require.NoError(t, os.WriteFile(path, []byte("stale"), 0o644))
	_, err = WriteDemo(dir)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, DemoJSONL(), b)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files left behind")
}
