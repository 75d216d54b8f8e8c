package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory is written into only when it is new, empty (a lock file aside)
// or marked as a run directory; the marker is written first.
func TestLockDirClaimsOnlyNewEmptyOrOwnDirectories(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		ok    bool
	}{
		{"missing", nil, true},
		{"empty", []string{}, true},
		{"only a lock file", []string{LockFile}, true},
		{"a run from before the marker", []string{ManifestFile, "notes.txt"}, true},
		{"marked", []string{RunDirMarker, "notes.txt"}, true},
		{"someone's files", []string{"notes.txt"}, false},
		{"someone's dot-file", []string{".notes.tmp-5"}, false},
		{"someone's folder", []string{"lm-eval/x/mine.json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if tc.files != nil {
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			for _, f := range tc.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
			}
			require.Equal(t, tc.ok, PreflightDir(dir, 0) == nil, "pre-flight agrees with the lock")
			l, err := LockDir(dir)
			if !tc.ok {
				require.ErrorIs(t, err, ErrNotRunDir)
				assert.NoFileExists(t, filepath.Join(dir, RunDirMarker))
				assert.NoFileExists(t, filepath.Join(dir, LockFile))
				return
			}
			require.NoError(t, err)
			l.Unlock()
			assert.FileExists(t, filepath.Join(dir, RunDirMarker))
		})
	}
}

func TestLockRunDirNeedsAnExistingRunDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := LockRunDir(missing)
	require.ErrorIs(t, err, ErrNotRunDir)
	assert.NoDirExists(t, missing, "not created")

	empty := t.TempDir()
	_, err = LockRunDir(empty)
	require.ErrorIs(t, err, ErrNotRunDir)

	l, err := LockDir(empty)
	require.NoError(t, err)
	l.Unlock()
	l, err = LockRunDir(empty)
	require.NoError(t, err)
	l.Unlock()
}

// Only the temporaries of files we write are stale; a look-alike of a name we
// never write stays, and so does a directory or link under our name.
func TestRemoveStaleTempsByName(t *testing.T) {
	dir := t.TempDir()
	ours := []string{".results.json.tmp-1", ".journal.jsonl.tmp-2", ".summary.arrow.tmp-3", "figures/.density-1-greedy.svg.tmp-4", "tables/.paired.tex.tmp-5"}
	theirs := []string{".notes.tmp-5", "figures/.notes.txt.tmp-6", "sub/.report.html.tmp-7", ".report.html.tmp-x", "tables/.x.svg.tmp-1"}
	for _, f := range append(append([]string{}, ours...), theirs...) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".manifest.json.tmp-8"), 0o755))
	removed, err := removeStaleTemps(dir)
	require.NoError(t, err)
	assert.ElementsMatch(t, ours, removed)
	for _, f := range theirs {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.DirExists(t, filepath.Join(dir, ".manifest.json.tmp-8"))
}
