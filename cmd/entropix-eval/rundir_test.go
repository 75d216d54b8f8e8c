package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/safepath"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
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

// filesUnder lists every file and folder under root, relative to it.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
		return nil
	}))
	return out
}

// A task or group member name is a file or folder name in the run directory
// (lm-eval's samples_<task>_<date>.jsonl, a member's OUT/<task>): one that
// is not a single path component is refused before anything is written, where
// it used to write outside --out.
func TestTaskAndGroupNamesStayInsideTheRunDirectory(t *testing.T) {
	model := sharedtest.Path(t, "models/stories260K-hf")
	for _, tc := range []struct {
		kind, name string
	}{
		{"task file", "/../../../../../../../../../../escaped/PWNED"},
		{"task file", "../../../../escaped"},
		{"group member", "../escaped"},
		{"group member", ".."},
	} {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			root := t.TempDir()
			tasks := filepath.Join(root, "tasks")
			require.NoError(t, os.Mkdir(tasks, 0o755))
			path := taskYAML(t, tasks, "hostile.yaml", fmt.Sprintf("task: %q\ntag: hostile_suite\n", tc.name), `"Q: {{question}}"`)
			task := path
			if tc.kind == "group member" {
				taskYAML(t, tasks, "fine.yaml", "task: fine_member\ntag: hostile_suite\n", `"Q: {{question}}"`)
				task = "hostile_suite"
			}
			out := filepath.Join(root, "deep", "er", "out")
			args := []string{"--model", model, "--include-path", tasks, "--task", task,
				"--samplers", "greedy", "--limit", "1", "--progress", "none", "--out", out}
			err := runQuiet(t, context.Background(), args)
			require.ErrorIs(t, err, safepath.ErrUnsafe)
			for _, p := range filesUnder(t, root) {
				if p != "." && p != "tasks" && !strings.HasPrefix(p, "tasks/") && !strings.HasPrefix(p, "deep") {
					t.Errorf("written outside --out: %s", p)
				}
				if strings.HasPrefix(p, "deep") && p != "deep" && p != "deep/er" && !strings.HasPrefix(p, "deep/er/out") {
					t.Errorf("written outside --out: %s", p)
				}
			}
		})
	}
}

// report finishes a run that stopped while finishing (killed, or a full disk
// while the figures were written): it writes the report and the lm-eval
// files, then marks the run complete.
func TestReportFinishesAFinishingRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, dir)))
	path := filepath.Join(dir, eval.ManifestFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), `"status": "complete"`)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), `"status": "complete"`, `"status": "finishing"`, 1)), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "report.html")))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "lm-eval")))

	require.NoError(t, runReport(context.Background(), []string{dir}, io.Discard, io.Discard))
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, eval.StatusComplete, m.Status)
	assert.FileExists(t, filepath.Join(dir, "report.html"))
	results, err := filepath.Glob(filepath.Join(dir, "lm-eval", "*", "*", "results_*.json"))
	require.NoError(t, err)
	assert.NotEmpty(t, results)
}

// --limit 0 ran the whole split without a word; it is refused now.
func TestLimitZeroIsRefused(t *testing.T) {
	err := runQuiet(t, context.Background(), smokeArgs(t, filepath.Join(t.TempDir(), "run"), "--limit", "0"))
	require.ErrorIs(t, err, errUsage)
	assert.ErrorContains(t, err, `"0" evaluates nothing; leave --limit out to evaluate the whole split`)
}

// report during a run's first minutes (its run directory marked, no results
// yet) names the process holding it; it said "stat results.arrow: no such file".
func TestReportDuringAFirstRunNamesTheHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	lock, err := eval.LockDir(dir) // what run holds from its start
	require.NoError(t, err)
	defer lock.Unlock()
	err = runReport(context.Background(), []string{dir}, io.Discard, io.Discard)
	require.ErrorIs(t, err, eval.ErrLocked)
	assert.ErrorContains(t, err, fmt.Sprintf("is in use by process %d", os.Getpid()))
}
