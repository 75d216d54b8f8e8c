package cuda

import (
	"math"
	"unsafe"
)

// dptr is a device address. The pipeline computes with it without knowing whether a
// GPU (the cuda build) or the Go emulator in the tests holds the memory.
type dptr uint64

// kernelArgs builds cuLaunchKernel's parameter array. gorgonia's Launch copies 8 bytes
// from every parameter pointer, so each value lives in a uint64; a kernel's int or
// float parameter reads the low 4 bytes (little-endian).
type kernelArgs struct {
	vals [24]uint64
	ptrs [24]unsafe.Pointer
	n    int
}

func (a *kernelArgs) reset() *kernelArgs { a.n = 0; return a }

func (a *kernelArgs) put(v uint64) *kernelArgs {
	a.vals[a.n] = v
	a.ptrs[a.n] = unsafe.Pointer(&a.vals[a.n])
	a.n++
	return a
}

func (a *kernelArgs) ptr(p dptr) *kernelArgs    { return a.put(uint64(p)) }
func (a *kernelArgs) i32(v int) *kernelArgs     { return a.put(uint64(uint32(int32(v)))) }
func (a *kernelArgs) i64(v int) *kernelArgs     { return a.put(uint64(int64(v))) }
func (a *kernelArgs) f32(v float32) *kernelArgs { return a.put(uint64(math.Float32bits(v))) }

// params is the pointer array for cuLaunchKernel.
func (a *kernelArgs) params() []unsafe.Pointer { return a.ptrs[:a.n] }

// backend is what the pipeline needs from a device: memory, copies on one stream in
// order, kernel launches by PTX entry name and the BF16 GEMM.
type backend interface {
	alloc(bytes int64, what string) (dptr, error)
	upload(dst dptr, b []byte) error
	download(b []byte, src dptr) error // completes by the next sync
	// copyDevice copies bytes within device memory, ordered with the launches.
	copyDevice(dst, src dptr, bytes int64) error
	sync() error
	launch(name string, grid, gridY, block, smem int, a *kernelArgs) error
	// gemm is y = x·wᵀ (+ y when beta is 1): w bf16 [n][k], x bf16 [rows][k], y f32 [rows][n].
	gemm(w, x, y dptr, rows, n, k int, beta float32) error
}
