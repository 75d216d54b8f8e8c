//go:build cudasim

package cuda

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
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
		"qkv_rope_cache": "ppppppppiiii", "attention_cached": "ppppppiiiiif",
		"attn_stats": "ppppppiiiiiif", "logit_stats": "pip", "topk_chunks": "ppiipp",
	}
	for _, names := range kernelModules {
		for _, n := range names {
			kinds, maxThreads, ok := m.KernelInfo(n)
			require.True(t, ok, n)
			require.Equal(t, params[n], kinds, n)
			require.Positive(t, maxThreads)
		}
	}
	_ = bytes.MinRead
}
