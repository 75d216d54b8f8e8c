package eval

import (
	"context"
	"errors"
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
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.NoDirExists(t, missing, "not created")

	empty := t.TempDir()
	_, err = LockRunDir(empty)
	require.ErrorIs(t, err, os.ErrNotExist)

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

// progressHook calls done after each finished item.
type progressHook struct{ done func() }

func (p progressHook) Start([]string, int) {}
func (p progressHook) Finish()             {}
func (p progressHook) Tokens(int, int)     {}
func (p progressHook) Done(int)            { p.done() }

// Deleting .lock under a running writer let a second writer in while the
// first kept appending (168 journal lines for 96 items). The first now
// checks before each append that its lock file is still the one at the
// path, and stops; the second takes the directory.
func TestDeletedLockFileStopsItsHolder(t *testing.T) {
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	var second *DirLock
	n := 0
	r.Progress = progressHook{done: func() {
		if n++; n == 3 {
			require.NoError(t, os.Remove(filepath.Join(dir, LockFile)))
			var err error
			second, err = LockDir(dir)
			require.NoError(t, err, "a second writer takes the new lock file")
		}
	}}
	_, err := r.Run(context.Background())
	require.ErrorIs(t, err, ErrLockLost)
	require.NotNil(t, second)
	defer second.Unlock()
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	assert.Less(t, len(recs), 8, "the first writer stopped at its next append")
	assert.NoError(t, second.Check())
}

// A run is complete only once the files derived from its results are
// written: a failure (a full disk, a kill) while writing them leaves
// "finishing", and finishing again completes it with the same finish time.
func TestCompleteOnlyOnceEveryFileIsWritten(t *testing.T) {
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	full := errors.New("write report.html: no space left on device")
	r.Outputs.Report = func(string) error { return full }
	_, err := r.Run(context.Background())
	require.ErrorIs(t, err, full)
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, StatusFinishing, m.Status)
	require.NotNil(t, m.Finished)
	finished := *m.Finished

	wrote := 0
	r = fakeRun{}.runner(dir)
	r.Outputs.Report = func(string) error { wrote++; return nil }
	_, err = r.Run(context.Background())
	require.NoError(t, err)
	m, err = ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, StatusComplete, m.Status)
	assert.Equal(t, 1, wrote)
	assert.True(t, finished.Equal(*m.Finished) || m.Finished.After(finished))
	require.NoError(t, MarkComplete(dir), "complete stays complete")
}
