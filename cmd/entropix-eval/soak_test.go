package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSoakTenKillsInOneRun kills the real binary with SIGKILL ten times at random
// points of one run (fixed seed: start-up, mid-generation, finalize and report
// are all hit over the draws), resuming each time, and checks that the final
// files equal an uninterrupted run's and that nothing stale is left behind.
func TestSoakTenKillsInOneRun(t *testing.T) {
	bin := buildBinary(t)
	args := func(dir string) []string {
		return append([]string{"run"}, smokeArgs(t, dir, "--batch-size", "2", "--prefill-chunk", "2")...)
	}
	ref := t.TempDir()
	start := time.Now()
	out, err := exec.Command(bin, args(ref)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	whole := time.Since(start)

	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(13, 2026))
	const kills = 10
	var killed, finishedEarly int
	for attempt := 0; killed < kills; attempt++ {
		require.Less(t, attempt, 4*kills, "could not land %d kills", kills)
		cmd := exec.Command(bin, args(dir)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// A point spread over start-up and the first part of the remaining work:
		// ten of them still leave the run unfinished most of the time.
		delay := time.Duration(rng.Float64() * float64(whole) / 4)
		select {
		case err := <-exited:
			require.NoError(t, err, "attempt %d failed by itself: %s", attempt, stderr.String())
			finishedEarly++
			// The run finished before the kill: start it over so the remaining
			// kills still land inside one unfinished run.
			require.NoError(t, os.RemoveAll(dir))
			continue
		case <-time.After(delay):
		}
		require.NoError(t, cmd.Process.Kill())
		<-exited
		killed++
		// Whatever the kill tore, the journal still reads.
		if _, err := os.Stat(filepath.Join(dir, eval.JournalFile)); err == nil {
			recs, err := eval.ReadJournal(filepath.Join(dir, eval.JournalFile))
			require.NoError(t, err, "after kill %d", killed)
			t.Logf("kill %d after %v: %d of 12 items journaled", killed, delay.Round(time.Millisecond), len(recs))
		}
	}
	t.Logf("%d kills (uninterrupted run %v; %d attempts finished before their kill)", killed, whole, finishedEarly)

	out, err = exec.Command(bin, args(dir)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, runOutputs(t, ref), runOutputs(t, dir))
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, eval.StatusComplete, m.Status)
	stale := regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		assert.False(t, stale.MatchString(d.Name()), "stale temporary %s", path)
		return nil
	}))
}
