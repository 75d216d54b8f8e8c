package pythontest

import (
	_ "embed"
	"os"
	"path/filepath"
	"testing"
)

//go:embed sitecustomize.py
var siteCustomize []byte

// LMEvalEnv is the environment in which an interpreter sees lm-eval's task
// files and core modules from ../shared/tasks (sharedTasks) as an lm-eval
// installation, through a sitecustomize.py written to a temporary
// directory; see that file for what it stands in for.
func LMEvalEnv(t testing.TB, sharedTasks string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), siteCustomize, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{
		"PYTHONPATH=" + dir,
		// IFEval's instructions_util downloads NLTK data on rank 0 at import.
		"LOCAL_RANK=1",
		"ENTROPIX_TEST_LMEVAL_CORE=" + filepath.Join(sharedTasks, "lm-eval-core"),
		"ENTROPIX_TEST_LMEVAL_TASKS=" + filepath.Join(sharedTasks, "lm-eval"),
	}
}

// UnportedCopy copies a task folder into a temporary directory with its
// utils.py one comment longer, so no Go port has the file's hash and with
// --python-hooks every hook of the copy runs in Python. It returns the
// directory holding the copy (an include path).
func UnportedCopy(t testing.TB, folder string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, filepath.Base(folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(folder, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "utils.py" {
			b = append(b, []byte("\n# a copy for entropix-eval's tests\n")...)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
