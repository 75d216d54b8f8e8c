package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperDirEnv makes the test binary act as a run process for TestKill9AndResume.
const helperDirEnv = "EVAL_KILL_HELPER_DIR"

func TestKillHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("helper process for TestKill9AndResume")
	}
	// Slow steps keep the process alive long enough to be killed mid-run.
	r := fakeRun{batch: 4, engine: func(_ int, e *fakeEngine) {
		e.onStep = func(int64) { time.Sleep(3 * time.Millisecond) }
	}}.runner(dir)
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestKill9AndResume kills a real run process with SIGKILL once part of its work is
// journaled, then resumes in this process and expects the uninterrupted results.
func TestKill9AndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	want := reference(t)
	dir := t.TempDir()
	journal := filepath.Join(dir, JournalFile)
	cmd, stderr := startHelperRun(t, dir)
	journaled := waitForLines(journal, 25, 20*time.Second)
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no deferred code runs
	_ = cmd.Wait()
	require.True(t, journaled, "the run never journaled enough items: %s", stderr.String())

	recs, err := ReadJournal(journal)
	require.NoError(t, err)
	require.Less(t, len(recs), 88, "the kill came after the run finished")

	m, err := fakeRun{batch: 7}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 88, m.Stats.ItemsResumed+m.Stats.ItemsThisRun)
	assert.Equal(t, want, outputs(t, dir))
}

// startHelperRun starts this test binary as a second process running a slow fake
// sweep into dir (TestKillHelperProcess); its output collects in the buffer.
func startHelperRun(t *testing.T, dir string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelperProcess$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return cmd, &out
}

// waitForLines polls until the file has at least n newlines or the timeout passes.
func waitForLines(path string, n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte{'\n'}) >= n {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}
