package sharedtest

import (
	"os"
	"os/exec"
	"testing"
)

// DebianPython is the interpreter tests run lm-eval's own Python with (a
// python3 earlier on PATH may be another installation).
const DebianPython = "/usr/bin/python3"

// Python returns Debian's python3 with the regex module, skipping t when it
// is absent, except where CI or ENTROPIX_REQUIRE_PYTHON asks for it (.ci/run
// installs python3 and python3-regex), where that is a failure.
func Python(t testing.TB) string {
	t.Helper()
	err := exec.Command(DebianPython, "-c", "import regex").Run()
	if err == nil {
		return DebianPython
	}
	if os.Getenv("CI") != "" || os.Getenv("ENTROPIX_REQUIRE_PYTHON") != "" {
		t.Fatalf("%s with the regex module is required here (apt-get install python3 python3-regex): %v", DebianPython, err)
	}
	t.Skipf("%s with the regex module is not installed (apt-get install python3 python3-regex); the differential tests against lm-eval's Python are skipped", DebianPython)
	return ""
}
