package main

import (
	"context"
	"fmt"
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

// hostileTask is a task file whose task name (and tag) are given verbatim.
func hostileTask(t *testing.T, dir, file, name, tag string) string {
	t.Helper()
	data := sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl")
	body := fmt.Sprintf("task: %q\ntag: %s\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: %s\ntest_split: test\n"+
		"doc_to_text: \"Q: {{question}}\\nA:\"\ndoc_to_target: \"{{answer.split('####')[-1].strip()}}\"\n"+
		"generation_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 4\n", name, tag, data)
	path := filepath.Join(dir, file)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
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
			path := hostileTask(t, tasks, "hostile.yaml", tc.name, "hostile_suite")
			task := path
			if tc.kind == "group member" {
				hostileTask(t, tasks, "fine.yaml", "fine_member", "hostile_suite")
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
