package cuda

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func TestEmbeddedPTXDeclaresEveryKernel(t *testing.T) {
	mods, err := loadPTX(ptxFiles)
	require.NoError(t, err)
	require.Len(t, mods, len(kernelModules))
	for _, m := range mods {
		// compute_80 PTX: JIT-compiled by the driver for A100 (sm_80), H100 (sm_90) and later.
		require.Equal(t, "sm_80", m.Target, m.Name)
		require.Subset(t, m.Entries, kernelModules[m.Name], m.Name)
	}
}

func TestParsePTX(t *testing.T) {
	text := ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry foo(\n\t.param .u64 a\n)\n.entry bar_2 (\n)\n.func baz(\n)\n"
	m, err := parsePTX("x", text)
	require.NoError(t, err)
	require.Equal(t, "sm_90", m.Target)
	require.Equal(t, []string{"bar_2", "foo"}, m.Entries)

	_, err = parsePTX("x", ".version 7.8\n.visible .entry foo(\n)")
	require.ErrorContains(t, err, "no .target")
}

func TestLoadPTXNamesMissingPieces(t *testing.T) {
	files := fstest.MapFS{}
	for n := range kernelModules {
		b, err := ptxFiles.ReadFile("ptx/" + n + ".ptx")
		require.NoError(t, err)
		files["ptx/"+n+".ptx"] = &fstest.MapFile{Data: b}
	}
	_, err := loadPTX(files)
	require.NoError(t, err)

	good := files["ptx/logits.ptx"]
	files["ptx/logits.ptx"] = &fstest.MapFile{Data: []byte(".target sm_80\n.visible .entry logit_stats(\n)")}
	_, err = loadPTX(files)
	require.ErrorContains(t, err, `entry point "topk_chunks" missing`)
	files["ptx/logits.ptx"] = good

	delete(files, "ptx/rope.ptx")
	_, err = loadPTX(files)
	require.ErrorContains(t, err, "ptx rope")
	require.ErrorContains(t, err, "make ptx")
}
