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
