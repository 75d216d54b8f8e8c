// Package pythontest finds the Python interpreter tests compare against:
// Debian's /usr/bin/python3 (CI installs it), or ENTROPIX_PYTHON. Without
// one a test skips with a message, unless ENTROPIX_REQUIRE_PYTHON=1 (CI),
// where it fails: CI cannot pass by skipping.
package pythontest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// DefaultPath is the interpreter tests use when ENTROPIX_PYTHON is unset.
const DefaultPath = "/usr/bin/python3"

// Python returns the interpreter's path after checking that it imports the
// given modules; it skips (or fails under ENTROPIX_REQUIRE_PYTHON=1) when
// the interpreter or a module is missing.
func Python(t testing.TB, modules ...string) string {
	t.Helper()
	py := os.Getenv("ENTROPIX_PYTHON")
	if py == "" {
		py = DefaultPath
	}
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("ENTROPIX_REQUIRE_PYTHON") == "1" {
			t.Fatalf(format+" (ENTROPIX_REQUIRE_PYTHON=1)", args...)
		}
		t.Skipf(format, args...)
	}
	if _, err := exec.LookPath(py); err != nil {
		missing("no Python interpreter at %s (set ENTROPIX_PYTHON): %v", py, err)
	}
	if len(modules) > 0 {
		script := "import " + strings.Join(modules, ", ")
		if out, err := exec.Command(py, "-c", script).CombinedOutput(); err != nil {
			missing("%s cannot %q: %v: %s", py, script, err, strings.TrimSpace(string(out)))
		}
	}
	return py
}
