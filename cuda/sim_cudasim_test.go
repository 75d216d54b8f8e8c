//go:build cudasim

package cuda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/cuda/internal/cudasim"
)

// With the cudasim tag, every pipeline test runs on the kernels of this directory
// compiled for the host (cuda/internal/cudasim) instead of the Go emulator.
func init() {
	hostKernels = true
	newTestDevice = func(t testing.TB) backend { return newSimDevice(t, loadHostKernels(t)) }
}

// kernelSources are this package's .cu files and the headers they include, as the
// GPU build compiles them.
func kernelSources(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("*.cu")
	require.NoError(t, err)
	src := map[string][]byte{}
	for _, n := range append(names, "common.cuh") {
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		src[n] = b
	}
	return src
}

var (
	modulesMu sync.Mutex
	modules   = map[string]*cudasim.Module{} // by library path
)

// loadKernels builds (or reuses) the host library of sources and loads it.
func loadKernels(t testing.TB, sources map[string][]byte) *cudasim.Module {
	t.Helper()
	lib, _, err := cudasim.Build(context.Background(), sources, cudasim.CacheDir())
	require.NoError(t, err)
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if m, ok := modules[lib]; ok {
		return m
	}
	m, err := cudasim.Load(lib)
	require.NoError(t, err)
	m.SetWorkers(runtime.NumCPU())
	modules[lib] = m
	return m
}

func loadHostKernels(t testing.TB) *cudasim.Module { return loadKernels(t, kernelSources(t)) }

// simDevice is the pipeline's backend on host-compiled kernels: device memory from
// the module (bounds known to its checks), launches through the module with the
// argument slots the GPU launch would pass, GEMMs through the reference cublasGemmEx.
type simDevice struct {
	mod    *cudasim.Module
	allocs []simAlloc // sorted by address
}

type simAlloc struct {
	p    unsafe.Pointer
	size int64
}

func newSimDevice(t testing.TB, mod *cudasim.Module) *simDevice {
	d := &simDevice{mod: mod}
	t.Cleanup(func() {
		for _, a := range d.allocs {
			require.NoError(t, mod.Free(a.p))
		}
	})
	return d
}

func (d *simDevice) alloc(bytes int64, what string) (dptr, error) {
	p, err := d.mod.Alloc(bytes, what)
	if err != nil {
		return 0, err
	}
	d.allocs = append(d.allocs, simAlloc{p, bytes})
	sort.Slice(d.allocs, func(i, j int) bool { return uintptr(d.allocs[i].p) < uintptr(d.allocs[j].p) })
	return dptr(uintptr(p)), nil
}

func (d *simDevice) view(p dptr, n int64) ([]byte, error) {
	i := sort.Search(len(d.allocs), func(i int) bool { return uintptr(d.allocs[i].p) > uintptr(p) }) - 1
	if i < 0 || int64(uintptr(p)-uintptr(d.allocs[i].p))+n > d.allocs[i].size {
		return nil, fmt.Errorf("cudasim: [%#x, +%d) is not inside one allocation", uint64(p), n)
	}
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(d.allocs[i].p, uintptr(p)-uintptr(d.allocs[i].p))), n), nil
}

func (d *simDevice) upload(dst dptr, b []byte) error {
	v, err := d.view(dst, int64(len(b)))
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	copy(v, b)
	return nil
}

func (d *simDevice) download(b []byte, src dptr) error {
	v, err := d.view(src, int64(len(b)))
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	copy(b, v)
	return nil
}

func (d *simDevice) copyDevice(dst, src dptr, n int64) error {
	to, err := d.view(dst, n)
	if err != nil {
		return fmt.Errorf("device copy: %w", err)
	}
	from, err := d.view(src, n)
	if err != nil {
		return fmt.Errorf("device copy: %w", err)
	}
	copy(to, from)
	return nil
}

func (d *simDevice) sync() error { return nil }

func (d *simDevice) launch(name string, grid, gridY, block, smem int, a *kernelArgs) error {
	return d.mod.Launch(name, grid, gridY, block, smem, a.vals[:a.n])
}

func (d *simDevice) gemm(w, x, y dptr, rows, n, k int, beta float32) error {
	return rowMajorGemm(w, x, y, rows, n, k, beta).reference(d)
}

// Every kernel the engine launches is in the host build with the parameter count the
// launch layer packs.
func TestHostKernelsRegistered(t *testing.T) {
	m := loadHostKernels(t)
	params := map[string]string{
		"embed_rows": "pppi", "rmsnorm_bf16": "ppppif", "silu_mul": "ppil", "add_bias": "ppil",
		"qkv_rope_cache": "ppppppppiiii", "attention_cached": "pppppppiiiiiiif", "attention_combine": "pppiiii",
		"attn_head_stats": "pppppppiiiiiif", "attn_agreement": "pppppppiiiifi", "attn_agreement_finish": "pppppiiii", "logit_stats_part": "piip", "logit_stats_finish": "pip", "topk_select": "ppiipp",
	}
	for _, names := range kernelModules {
		for _, n := range names {
			kinds, maxThreads, ok := m.KernelInfo(n)
			require.True(t, ok, n)
			require.Equal(t, params[n], kinds, n)
			require.Positive(t, maxThreads)
		}
	}
}

var ptxEntryParamsRE = regexp.MustCompile(`(?s)\.entry\s+(\w+)\s*\((.*?)\)\s*(?:\.maxntid\s+(\d+))?`)

// The committed PTX declares every kernel with the parameter types and thread limit
// of the source the host build compiled: evidence, short of nvcc, that the PTX (and
// ptx/sources.sha256) belongs to these sources.
func TestPTXSignaturesMatchSources(t *testing.T) {
	m := loadHostKernels(t)
	ptxType := map[rune]string{'p': ".u64", 'i': ".u32", 'f': ".f32", 'l': ".u64", 'd': ".f64"}
	mods, err := loadPTX(ptxFiles)
	require.NoError(t, err)
	seen := 0
	for _, mod := range mods {
		for _, e := range ptxEntryParamsRE.FindAllStringSubmatch(mod.Text, -1) {
			kinds, maxThreads, ok := m.KernelInfo(e[1])
			require.True(t, ok, "%s in ptx/%s.ptx is not in the sources", e[1], mod.Name)
			var got []string
			for _, p := range regexp.MustCompile(`\.param\s+(\.\w+)`).FindAllStringSubmatch(e[2], -1) {
				got = append(got, p[1])
			}
			var want []string
			for _, k := range kinds {
				want = append(want, ptxType[k])
			}
			require.Equal(t, want, got, "%s: PTX parameters", e[1])
			if e[3] != "" {
				require.Equal(t, e[3], strconv.Itoa(maxThreads), "%s: .maxntid", e[1])
			} else {
				require.Equal(t, 1024, maxThreads, "%s: no .maxntid in the PTX", e[1])
			}
			seen++
		}
	}
	n := 0
	for _, names := range kernelModules {
		n += len(names)
	}
	require.Equal(t, n, seen, "entry points in the PTX against kernelModules")
}
