package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles creates each relative path under dir holding its own name.
func writeFiles(t *testing.T, dir string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(rel), 0o644))
	}
}

func assertFilesKept(t *testing.T, dir string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if assert.NoError(t, err, "%s was removed", rel) {
			assert.Equal(t, rel, string(b), "%s was rewritten", rel)
		}
	}
}

// --out pointed at a directory of someone's own files is refused and nothing
// there is touched (it used to clear lm-eval/ and every ".*.tmp-N" file); in a
// run directory, only the files the run writes are removed or rewritten.
func TestRunNeverRemovesFilesItDidNotWrite(t *testing.T) {
	foreign := []string{"lm-eval/x/mine.json", ".notes.tmp-5", "figures/.mine.txt.tmp-3", "sub/.report.html.tmp-1"}

	notRun := t.TempDir()
	writeFiles(t, notRun, foreign...)
	err := runQuiet(t, context.Background(), smokeArgs(t, notRun))
	require.ErrorIs(t, err, eval.ErrNotRunDir)
	assert.ErrorContains(t, err, "holds files but is not a run directory")
	assertFilesKept(t, notRun, foreign...)
	assert.NoFileExists(t, filepath.Join(notRun, eval.ManifestFile))
	assert.NoFileExists(t, filepath.Join(notRun, eval.RunDirMarker))

	run := filepath.Join(t.TempDir(), "run")
	args := smokeArgs(t, run)
	require.NoError(t, runQuiet(t, context.Background(), args))
	writeFiles(t, run, foreign...)
	writeFiles(t, run, "lm-eval/greedy__seed=0/mine/notes.json")
	stale := []string{".report.html.tmp-77", "figures/.accuracy.svg.tmp-8", ".manifest.json.tmp-9"}
	writeFiles(t, run, stale...)
	require.NoError(t, runQuiet(t, context.Background(), args), "resuming a finished run")
	assertFilesKept(t, run, foreign...)
	assertFilesKept(t, run, "lm-eval/greedy__seed=0/mine/notes.json")
	for _, s := range stale {
		assert.NoFileExists(t, filepath.Join(run, s), "a stale temporary of our own file is cleared")
	}
	results, err := filepath.Glob(filepath.Join(run, "lm-eval", "greedy__seed=0", "*", "results_*.json"))
	require.NoError(t, err)
	assert.Len(t, results, 1, "the earlier lm-eval files are replaced, not kept beside the new")
}
