package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/cuda/internal/cudasim"
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
	text := ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry foo(\n\t.param .u64 a\n)\n.entry bar_2 (\n)\n.maxntid 512, 1, 1\n{\n}\n.func baz(\n)\n"
	m, err := parsePTX("x", text)
	require.NoError(t, err)
	require.Equal(t, "sm_90", m.Target)
	require.Equal(t, "7.8", m.Version)
	require.Equal(t, []string{"bar_2", "foo"}, m.Entries)
	require.Equal(t, map[string]int{"bar_2": 512}, m.MaxThreads, "foo has no .maxntid; bar_2's is not foo's")

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
	files["ptx/logits.ptx"] = &fstest.MapFile{Data: []byte(".target sm_80\n.visible .entry logit_stats_part(\n)")}
	_, err = loadPTX(files)
	require.ErrorContains(t, err, `entry point "logit_stats_finish" missing`)
	files["ptx/logits.ptx"] = good

	delete(files, "ptx/rope.ptx")
	_, err = loadPTX(files)
	require.ErrorContains(t, err, "ptx rope")
	require.ErrorContains(t, err, "make ptx")
}

// The committed PTX was generated from the sources as they are: `make ptx` records
// the hash of every .cu file and common.cuh in ptx/sources.sha256 beside the PTX, and
// a kernel edited without regenerating it fails here instead of shipping stale PTX.
func TestPTXMatchesSources(t *testing.T) {
	recorded := map[string]string{}
	b, err := os.ReadFile("ptx/sources.sha256")
	require.NoError(t, err, "run `make ptx`")
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 2, "ptx/sources.sha256 line %d: %q", i+1, line)
		recorded[strings.TrimPrefix(f[1], "*")] = f[0]
	}
	sources, err := filepath.Glob("*.cu")
	require.NoError(t, err)
	require.NotEmpty(t, sources)
	for _, n := range append(sources, "common.cuh") {
		src, err := os.ReadFile(n)
		require.NoError(t, err)
		sum := sha256.Sum256(src)
		require.Equal(t, recorded[n], hex.EncodeToString(sum[:]),
			"%s changed since cuda/ptx was generated (or is new): run `make ptx` with cuda/nvcc118.sh's nvcc (docs/cuda.md) and commit the PTX with it", n)
		if strings.HasSuffix(n, ".cu") {
			_, err := ptxFiles.ReadFile("ptx/" + strings.TrimSuffix(n, ".cu") + ".ptx")
			require.NoError(t, err, "%s has no PTX", n)
		}
		delete(recorded, n)
	}
	require.Empty(t, recorded, "ptx/sources.sha256 lists files that are gone")
}

// kernelModules (what New loads from the PTX) names exactly the kernels of each source.
func TestKernelModulesMatchSources(t *testing.T) {
	sources, err := filepath.Glob("*.cu")
	require.NoError(t, err)
	require.Len(t, sources, len(kernelModules))
	for _, n := range sources {
		src, err := os.ReadFile(n)
		require.NoError(t, err)
		u, err := cudasim.Scan(n, src)
		require.NoError(t, err)
		var names []string
		for _, k := range u.Kernels {
			names = append(names, k.Name)
		}
		require.ElementsMatch(t, kernelModules[strings.TrimSuffix(n, ".cu")], names, n)
	}
}

// Every kernel the pipeline launches with more than 256 threads declares launch bounds
// covering that block in the PTX the driver loads (see kernelMaxBlock), and none is
// launched above its bounds.
func TestLargeBlocksDeclareLaunchBounds(t *testing.T) {
	mods, err := loadPTX(ptxFiles)
	require.NoError(t, err)
	seen := 0
	for _, m := range mods {
		for _, name := range kernelModules[m.Name] {
			block, ok := kernelMaxBlock[name]
			require.True(t, ok, "kernelMaxBlock has no entry for %s", name)
			bound, declared := m.MaxThreads[name]
			if block > 256 {
				require.True(t, declared, "%s is launched with %d threads but declares no __launch_bounds__ (ptx/%s.ptx has no .maxntid)", name, block, m.Name)
			}
			if declared {
				require.LessOrEqual(t, block, bound, "%s: launched with %d threads, .maxntid %d", name, block, bound)
			}
			seen++
		}
	}
	require.Len(t, kernelMaxBlock, seen, "kernelMaxBlock names a kernel no module has")
}

func TestJITErrorCarriesTheDriverLog(t *testing.T) {
	m := ptxModule{Name: "logits", Version: "9.1", Target: "sm_90a"}
	code := errors.New("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
	log := make([]byte, jitLogBytes)
	copy(log, "ptxas application ptx input, line 9; fatal   : Unsupported .version 9.1; current version is '8.8'\n")
	err := jitError(m, code, log)
	require.ErrorIs(t, err, code)
	require.EqualError(t, err, "loading PTX module logits (.version 9.1, .target sm_90a): CUDA_ERROR_UNSUPPORTED_PTX_VERSION; "+
		"JIT log: ptxas application ptx input, line 9; fatal   : Unsupported .version 9.1; current version is '8.8'")

	require.ErrorContains(t, jitError(m, code, make([]byte, 64)), "JIT log: (the driver wrote no JIT log)")
}
