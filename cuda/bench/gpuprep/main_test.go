package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/cuda/internal/testmodels"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

func TestRun(t *testing.T) {
	shared := sharedtest.Root(t)
	prep := t.TempDir()
	err := run(shared, prep, &bytes.Buffer{})
	require.ErrorContains(t, err, "cuda.test: no such file or directory (the Makefile's gpu-prep target builds it)")

	for _, b := range binaries {
		require.NoError(t, os.WriteFile(filepath.Join(prep, b), []byte("#!/bin/sh\n"), 0o755))
	}
	// A file from an earlier copy that the tests no longer read is dropped.
	stale := filepath.Join(prep, "shared/models/gone/model.safetensors")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
	require.NoError(t, os.WriteFile(stale, nil, 0o644))

	var out bytes.Buffer
	err = run(shared, prep, &out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Regexp(t, `^carry: `+prep+` \(24\.\d MiB\)$`, lines[len(lines)-1])
	require.NoFileExists(t, stale)

	manifest, err := os.ReadFile(filepath.Join(prep, manifestName))
	require.NoError(t, err)
	entries := strings.Split(strings.TrimSpace(string(manifest)), "\n")
	require.Len(t, entries, len(binaries)+len(testmodels.Files()))
	sum := sha256.Sum256([]byte("#!/bin/sh\n"))
	require.Equal(t, hex.EncodeToString(sum[:])+"  cuda.test", entries[0], "sha256sum --check reads this format")
	require.Contains(t, string(manifest), "  shared/models/stories260K/stories260K.bin\n")

	// What travels is bounded by the device tool.
	big, err := os.Create(filepath.Join(prep, "big.bin"))
	require.NoError(t, err)
	require.NoError(t, big.Truncate(64<<20))
	require.NoError(t, big.Close())
	err = run(shared, prep, &bytes.Buffer{})
	require.ErrorContains(t, err, "exceed the device tool's 64.0 MiB")
}
