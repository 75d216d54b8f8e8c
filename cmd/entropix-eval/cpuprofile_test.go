package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --cpuprofile writes a pprof file (gzip-compressed protobuf) and leaves the run
// directory as a run without it would: the same directory resumes without the flag.
func TestRunCPUProfile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, out, "--cpuprofile", prof)))
	b, err := os.ReadFile(prof)
	require.NoError(t, err)
	require.Greater(t, len(b), 2)
	require.Equal(t, []byte{0x1f, 0x8b}, b[:2], "a pprof profile is gzip-compressed")
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, out)), "the profile flag is not part of the fingerprint")

	err = runQuiet(t, context.Background(), smokeArgs(t, filepath.Join(t.TempDir(), "r2"), "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "p")))
	require.ErrorContains(t, err, "--cpuprofile")
}
