package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// buildTiny writes the "tiny" preset (edited by mutate) into a fresh temp directory.
func buildTiny(t testing.TB, mutate func(*TestModelSpec)) string {
	t.Helper()
	spec, err := TestModelPreset("tiny")
	require.NoError(t, err)
	spec.Seed = 7
	if mutate != nil {
		mutate(&spec)
	}
	dir := filepath.Join(t.TempDir(), "model")
	require.NoError(t, BuildTestModel(dir, spec))
	return dir
}

// splitSafetensors returns a file's header as a JSON map and its data section.
func splitSafetensors(t testing.TB, path string) (map[string]any, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint64(b)
	dec := json.NewDecoder(bytes.NewReader(b[8 : 8+n]))
	dec.UseNumber()
	var h map[string]any
	require.NoError(t, dec.Decode(&h))
	return h, b[8+n:]
}

// joinSafetensors writes a header map (keys sorted, so __metadata__ comes first) and
// a data section as a safetensors file.
func joinSafetensors(t testing.TB, path string, h map[string]any, data []byte) {
	t.Helper()
	hdr, err := json.Marshal(h)
	require.NoError(t, err)
	for len(hdr)%8 != 0 {
		hdr = append(hdr, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	out = append(append(out, hdr...), data...)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// editHeader rewrites the header of a safetensors file, keeping its data.
func editHeader(t testing.TB, path string, edit func(h map[string]any)) {
	t.Helper()
	h, data := splitSafetensors(t, path)
	edit(h)
	joinSafetensors(t, path, h, data)
}

// entry is one tensor's header entry, for editing.
func entry(h map[string]any, name string) map[string]any { return h[name].(map[string]any) }

// editConfig rewrites keys of a model directory's config.json.
func editConfig(t testing.TB, dir string, edits map[string]any) {
	t.Helper()
	path := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.NoError(t, os.WriteFile(path, configWith(t, m, edits), 0o644))
}

func mutateFile(t testing.TB, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, f(b), 0o644))
}

func readJSONMap(t testing.TB, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}
