//go:build !cudasim

// (`make cudasim` runs ./cuda/... again with its tag; these tests do not depend on it.)

// Package bench holds the CUDA backend's GPU-window scripts; its test runs window.sh
// here, without a GPU, against what `make gpu-prep` builds: with a stand-in
// libcuda.so.1, and with stand-ins for the test binary, nvidia-smi, compute-sanitizer
// and the transformers peer for the paths a real GPU would take.
package bench

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// The device tool brings back at most this many files from $OUT.
const outMaxFiles = 8

var outName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

type window struct {
	root, shared, prep string
}

// run runs window.sh with env added and returns its output and exit status. The
// benchmark model is mkmodel's tiny preset in a temporary folder.
func (w window) run(t *testing.T, prep, out string, args []string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(w.root, "cuda/bench/window.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "GPUPREP="+prep, "OUT="+out, "BENCH_PRESET=tiny",
		"ENTROPIX_BENCH_MODEL="+filepath.Join(t.TempDir(), "model"), "ENTROPIX_CUBLAS=")
	cmd.Env = append(cmd.Env, env...)
	b, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	checkOut(t, out)
	return string(b), code
}

// checkOut: what window.sh leaves in $OUT comes back whole from the device tool.
func checkOut(t *testing.T, out string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.LessOrEqual(t, len(entries), outMaxFiles, "files in $OUT")
	for _, e := range entries {
		require.True(t, e.Type().IsRegular(), "%s: window.sh writes plain files only", e.Name())
		require.Regexp(t, outName, e.Name())
	}
	require.FileExists(t, filepath.Join(out, "summary.md"))
}

func TestWindow(t *testing.T) {
	shared := sharedtest.Root(t)
	for _, tool := range []string{"bash", "make", "gcc", "timeout", "sha256sum", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	w := window{root: root, shared: shared, prep: filepath.Join(t.TempDir(), "prep")}

	// make gpu-prep into a temporary folder, as the GPU window's preparation does.
	cmd := exec.Command("make", "--no-print-directory", "gpu-prep", "GPUPREP="+w.prep, "ENTROPIX_SHARED="+shared)
	cmd.Dir = root
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	carry := regexp.MustCompile(`^carry: (\S+) \((\d+\.\d) MiB\)$`).FindStringSubmatch(lines[len(lines)-1])
	require.NotNil(t, carry, "last line of make gpu-prep: %q", lines[len(lines)-1])
	require.Equal(t, w.prep, carry[1])
	require.Less(t, mustFloat(t, carry[2]), 48.0, "the carry stays well under the device tool's 64 MiB")

	standIn := buildStandIn(t, filepath.Join(w.prep, "cuda.test"), filepath.Join(shared, "cuda/include"))

	t.Run("no prepared folder", func(t *testing.T) {
		out, code := w.run(t, t.TempDir(), t.TempDir(), nil)
		require.NotZero(t, code)
		require.Contains(t, out, "MANIFEST.sha256: run `make gpu-prep` where Go and ../shared are, and carry .gpuprep")
	})

	t.Run("missing data", func(t *testing.T) {
		prep := copyDir(t, w.prep)
		require.NoError(t, os.Remove(filepath.Join(prep, "shared/models/tiny-qwen2/model.safetensors")))
		o := t.TempDir()
		out, code := w.run(t, prep, o, nil, "LD_LIBRARY_PATH="+standIn)
		require.NotZero(t, code)
		require.Contains(t, out, "prepared data missing or corrupt")
		require.Contains(t, out, "shared/models/tiny-qwen2/model.safetensors")
		require.FileExists(t, filepath.Join(o, "test-gpu.log"), "the rest still runs")

		// A new file, not a write through the hard link to the shared prepared folder.
		require.NoError(t, os.Remove(filepath.Join(prep, "mkmodel")))
		require.NoError(t, os.WriteFile(filepath.Join(prep, "mkmodel"), []byte("cut off"), 0o755))
		o = t.TempDir()
		out, code = w.run(t, prep, o, nil, "LD_LIBRARY_PATH="+standIn)
		require.NotZero(t, code)
		require.Contains(t, out, "mkmodel: FAILED")
		require.NoFileExists(t, filepath.Join(o, "test-gpu.log"), "nothing runs without the binaries")
	})

	t.Run("driver with no device", func(t *testing.T) {
		// The test binary's own probe exits 0 with SKIP here: the window must not.
		out, code := w.run(t, w.prep, t.TempDir(), nil, "LD_LIBRARY_PATH="+standIn, "ENTROPIX_STANDIN_DEVICES=0")
		require.NotZero(t, code)
		require.Contains(t, out, "GPU tests: not run, the test binary found no usable GPU: "+
			"FAIL: no usable CUDA device (probe 0) and ENTROPIX_REQUIRE_GPU is set")
	})

	t.Run("device whose JIT refuses the PTX", func(t *testing.T) {
		o := t.TempDir()
		out, code := w.run(t, w.prep, o, nil, "LD_LIBRARY_PATH="+standIn, "ENTROPIX_STANDIN_DEVICES=1")
		require.NotZero(t, code)
		require.Regexp(t, `GPU tests: failed: TestGPUKernelResources TestGPUMatchesCPU .*TestGPUPrefixSharing`, out)
		require.Contains(t, out, "decode benchmarks: no figure for BenchmarkDecode/batch=1")
		log, err := os.ReadFile(filepath.Join(o, "test-gpu.log"))
		require.NoError(t, err)
		require.Contains(t, string(log), "cuda: device 0 (Stand-in GPU): loading PTX module attention (.version 7.8, .target sm_80): "+
			"InvalidPtx; JIT log: stand-in JIT: ptxas fatal : Unsupported .version")
	})

	// The paths a GPU machine takes, with stand-ins for what only it has.
	fake := fakePrep(t, w)
	real3, err := exec.LookPath("python3")
	require.NoError(t, err)
	fakeEnv := []string{"PATH=" + filepath.Join(root, "cuda/bench/testdata/fakebin") + ":" + os.Getenv("PATH"),
		"REAL_PYTHON3=" + real3, "ENTROPIX_CUBLAS=/usr/lib/fake/libcublas.so.13"}

	t.Run("everything passes", func(t *testing.T) {
		o := t.TempDir()
		out, code := w.run(t, fake, o, nil, append(fakeEnv, "FAKE_TESTS=pass")...)
		require.Zero(t, code, out)
		require.Contains(t, out, "## OK: every step ran and passed")
		require.Contains(t, out, "| decode tok/s, batch 64, context 512 | 12800 | 3200 | 4.00x |")
		require.Contains(t, out, "| prefill tok/s, 64 x 512 | 163840 | 100000 | 1.64x |")
		require.Contains(t, out, "goal: decode at batch 64 >= 2x the peer: met (4.00x)")
		require.Contains(t, out, "goal: batch-1 decode >= 70% of the HBM bandwidth floor: MISSED (53%)")
		require.Contains(t, out, "    device 0: Fake GPU, compute capability 9.0")
		entries, err := os.ReadDir(o)
		require.NoError(t, err)
		require.Len(t, entries, 7, "preflight, mkmodel, test-gpu, bench-go, peer log and jsonl, summary")
	})

	t.Run("a GPU test skips", func(t *testing.T) {
		out, code := w.run(t, fake, t.TempDir(), nil, append(fakeEnv, "FAKE_TESTS=skip")...)
		require.NotZero(t, code)
		require.Contains(t, out, "GPU tests: skipped: --- SKIP: TestGPUMatchesCPU")
	})

	t.Run("a GPU test does not finish", func(t *testing.T) {
		out, code := w.run(t, fake, t.TempDir(), nil, append(fakeEnv, "FAKE_TESTS=cut")...)
		require.NotZero(t, code)
		require.Contains(t, out, "GPU tests: did not run to the end: TestGPUMatchesCPU")
	})

	t.Run("a GPU test hangs", func(t *testing.T) {
		start := time.Now()
		out, code := w.run(t, fake, t.TempDir(), nil, append(fakeEnv, "FAKE_TESTS=hang", "WINDOW_SECONDS=12")...)
		require.NotZero(t, code)
		require.Less(t, time.Since(start), 45*time.Second, "the deadline bounds the whole command")
		require.Regexp(t, `GPU tests timed out after \d+s`, out)
		require.Contains(t, out, "transformers peer: not run, no time left before the 12s deadline")
	})

	t.Run("too many files in OUT", func(t *testing.T) {
		o := t.TempDir()
		for i := 0; i < 3; i++ {
			require.NoError(t, os.WriteFile(filepath.Join(o, fmt.Sprintf("earlier-%d.log", i)), nil, 0o644))
		}
		cmd := exec.Command("bash", filepath.Join(root, "cuda/bench/window.sh"))
		cmd.Env = append(os.Environ(), append(fakeEnv, "GPUPREP="+fake, "OUT="+o, "BENCH_PRESET=tiny",
			"ENTROPIX_BENCH_MODEL="+filepath.Join(t.TempDir(), "model"))...)
		b, err := cmd.CombinedOutput()
		require.Error(t, err)
		require.Contains(t, string(b), "holds 10 files; the device tool brings back 8")
	})

	t.Run("sanitize", func(t *testing.T) {
		o := t.TempDir()
		out, code := w.run(t, fake, o, []string{"sanitize"}, append(fakeEnv, "FAKE_TESTS=pass")...)
		require.Zero(t, code, out)
		require.Contains(t, out, "ERROR SUMMARY: 0 errors")
		require.Contains(t, out, "RACECHECK SUMMARY: 0 hazards")
		out, code = w.run(t, fake, t.TempDir(), []string{"sanitize"}, append(fakeEnv, "FAKE_TESTS=skip")...)
		require.NotZero(t, code)
		require.Contains(t, out, "memcheck: skipped")
	})

	t.Run("profile", func(t *testing.T) {
		o := t.TempDir()
		out, code := w.run(t, fake, o, []string{"profile"}, append(fakeEnv, "FAKE_TESTS=pass")...)
		require.Zero(t, code, out)
		require.Contains(t, out, "attn_head_stats (1, 32, 1)x(256, 1, 1), Device 0, CC 9.0, Invocations 4")
		require.Contains(t, out, "BenchmarkDecode/batch=64-16 64 5000000 ns/op")
		checkOut(t, o)
		out, code = w.run(t, fake, t.TempDir(), []string{"profile"}, append(fakeEnv, "FAKE_TESTS=pass", "PATH=/usr/bin:/bin")...)
		require.NotZero(t, code)
		require.Contains(t, out, "profile: ncu is not on PATH")
	})

	t.Run("sanitize without compute-sanitizer", func(t *testing.T) {
		out, code := w.run(t, w.prep, t.TempDir(), []string{"sanitize"}, "PATH=/usr/bin:/bin")
		require.NotZero(t, code)
		require.Contains(t, out, "compute-sanitizer is not on PATH")
	})
}

// buildStandIn compiles testdata/standin_cuda.c into dir/libcuda.so.1 with a stub
// returning CUDA_ERROR_NOT_SUPPORTED (801) for every other cu* symbol bin imports, and
// returns dir.
func buildStandIn(t *testing.T, bin, include string) string {
	t.Helper()
	dir := t.TempDir()
	obj := filepath.Join(dir, "standin.o")
	gcc(t, "-c", "-fPIC", "-Wall", "-Werror", "-I"+include, "-o", obj, "testdata/standin_cuda.c")
	defined := map[string]bool{}
	o, err := elf.Open(obj)
	require.NoError(t, err)
	syms, err := o.Symbols()
	require.NoError(t, err)
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			defined[s.Name] = true
		}
	}
	require.NoError(t, o.Close())
	f, err := elf.Open(bin)
	require.NoError(t, err)
	imported, err := f.ImportedSymbols()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var stubs strings.Builder
	n := 0
	for _, s := range imported {
		if strings.HasPrefix(s.Name, "cu") && !defined[s.Name] {
			fmt.Fprintf(&stubs, "int %s(void) { return 801; }\n", s.Name)
			n++
		}
	}
	require.Greater(t, n, 50, "the cuda test binary imports the driver API")
	stubsC := filepath.Join(dir, "stubs.c")
	require.NoError(t, os.WriteFile(stubsC, []byte(stubs.String()), 0o644))
	gcc(t, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", filepath.Join(dir, "libcuda.so.1"), obj, stubsC)
	return dir
}

func gcc(t *testing.T, args ...string) {
	t.Helper()
	b, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %v: %s", args, b)
}

// fakePrep is a prepared folder whose test binary and mkmodel are the stand-in
// scripts, with its manifest made by gpuprep as make gpu-prep makes it.
func fakePrep(t *testing.T, w window) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fake")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for src, dst := range map[string]string{"fake-cuda-test.sh": "cuda.test", "fake-mkmodel.sh": "mkmodel"} {
		b, err := os.ReadFile(filepath.Join("testdata", src))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, dst), b, 0o755))
	}
	cmd := exec.Command("go", "run", "./cuda/bench/gpuprep", "-shared", w.shared, "-prep", dir)
	cmd.Dir = w.root
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return dir
}

// copyDir copies a prepared folder (hard links where possible: nothing is written).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "prep")
	b, err := exec.Command("cp", "-al", src, dst).CombinedOutput()
	if err != nil {
		b, err = exec.Command("cp", "-a", src, dst).CombinedOutput()
	}
	require.NoError(t, err, "%s", b)
	return dst
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	require.NoError(t, err)
	return f
}
