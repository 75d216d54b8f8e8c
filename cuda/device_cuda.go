//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/entropix-eval/entropix-eval/engine"
)

// device is one GPU's context, the engine's stream and the loaded kernels.
type device struct {
	ordinal int
	name    string
	dev     cu.Device
	ctx     cu.CUContext
	stream  cu.Stream
	mods    []cu.Module
	fns     map[string]cu.Function
	allocs  []cu.DevicePtr
}

// DeviceCount is the number of CUDA devices the driver reports.
func DeviceCount() (int, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return 0, fmt.Errorf("cuda: counting devices: %w", err)
	}
	return n, nil
}

// openDevice makes ordinal's primary context current on this (locked) OS thread,
// creates a stream and JIT-loads the embedded PTX. The primary context is shared with
// cuBLAS' runtime-API allocations, so there is one context per GPU in the process.
func openDevice(ordinal int) (*device, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: device %d requested, %d present (0..%d)", ordinal, n, n-1)
	}
	d := &device{ordinal: ordinal, fns: map[string]cu.Function{}}
	if d.dev, err = cu.GetDevice(ordinal); err != nil {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	d.name, _ = d.dev.Name()
	if major, _, err := d.dev.ComputeCapability(); err == nil && major < 8 {
		return nil, fmt.Errorf("cuda: device %d (%s) has compute capability %d.x; the kernels need 8.0+ (bf16)", ordinal, d.name, major)
	}
	if d.ctx, err = d.dev.RetainPrimaryCtx(); err != nil {
		return nil, fmt.Errorf("cuda: device %d: primary context: %w", ordinal, err)
	}
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		d.close()
		return nil, fmt.Errorf("cuda: device %d: set context: %w", ordinal, err)
	}
	if d.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		d.close()
		return nil, fmt.Errorf("cuda: device %d: stream: %w", ordinal, err)
	}
	mods, err := loadPTX(ptxFiles)
	if err != nil {
		d.close()
		return nil, fmt.Errorf("cuda: %w", err)
	}
	for _, m := range mods {
		// The driver's JIT says why a module fails (a PTX ISA newer than it knows, an
		// instruction the target lacks, too many resources) only in this log; the
		// error code alone does not.
		errLog := make([]byte, jitLogBytes)
		mod, err := cu.LoadDataEx(m.Text, &cu.JITErrorLogBuffer{Buffer: errLog})
		if err != nil {
			d.close()
			return nil, fmt.Errorf("cuda: device %d (%s): %w", ordinal, d.name, jitError(m, err, errLog))
		}
		d.mods = append(d.mods, mod)
		for _, name := range kernelModules[m.Name] {
			fn, err := mod.Function(name)
			if err != nil {
				d.close()
				return nil, fmt.Errorf("cuda: device %d: kernel %s: %w", ordinal, name, err)
			}
			d.fns[name] = fn
		}
	}
	return d, nil
}

// bind pins the calling goroutine to its OS thread and makes the device's context
// current there: driver calls act on the thread's current context, and Go moves
// goroutines between threads. Call the returned function when done.
func (d *device) bind() (func(), error) {
	runtime.LockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("cuda: device %d: set context: %w", d.ordinal, err)
	}
	return runtime.UnlockOSThread, nil
}

// alloc returns zeroed device memory that close frees.
func (d *device) alloc(bytes int64, what string) (dptr, error) {
	p, err := cu.MemAlloc(max(bytes, deviceAlign))
	if err != nil {
		free, total, _ := cu.MemInfo()
		return 0, fmt.Errorf("cuda: device %d: allocating %s for %s (%s free of %s): %w",
			d.ordinal, engine.GiB(bytes), what, engine.GiB(free), engine.GiB(total), err)
	}
	d.allocs = append(d.allocs, p)
	if err := cu.MemsetD8Async(p, 0, max(bytes, deviceAlign), d.stream); err != nil {
		return 0, fmt.Errorf("cuda: clearing %s: %w", what, err)
	}
	return dptr(p), nil
}

// upload copies host bytes to dst on the engine's stream. Pageable host memory is
// staged before the call returns, so b may be reused at once.
func (d *device) upload(dst dptr, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return cu.MemcpyHtoDAsync(cu.DevicePtr(dst), unsafe.Pointer(&b[0]), int64(len(b)), d.stream)
}

// download copies device bytes into b on the engine's stream (the caller syncs).
func (d *device) download(b []byte, src dptr) error {
	if len(b) == 0 {
		return nil
	}
	return cu.MemcpyDtoHAsync(unsafe.Pointer(&b[0]), cu.DevicePtr(src), int64(len(b)), d.stream)
}

// copyDevice copies device bytes on the engine's stream (ordered with the kernels).
func (d *device) copyDevice(dst, src dptr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return cu.MemcpyDtoDAsync(cu.DevicePtr(dst), cu.DevicePtr(src), bytes, d.stream)
}

func (d *device) sync() error { return d.stream.Synchronize() }

func (d *device) close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if d.stream != (cu.Stream{}) {
		keep(d.stream.Synchronize())
	}
	for _, p := range d.allocs {
		keep(cu.MemFree(p))
	}
	d.allocs = nil
	for _, m := range d.mods {
		keep(m.Unload())
	}
	d.mods = nil
	if d.stream != (cu.Stream{}) {
		keep(d.stream.Destroy())
	}
	if d.ctx != (cu.CUContext{}) {
		keep(d.dev.ReleasePrimaryCtx())
		d.ctx = cu.CUContext{}
	}
	return first
}

// launch runs kernel name on the engine's stream.
func (d *device) launch(name string, grid, gridY, block, smem int, a *kernelArgs) error {
	fn, ok := d.fns[name]
	if !ok {
		return fmt.Errorf("cuda: kernel %s not loaded", name)
	}
	if err := fn.Launch(grid, gridY, 1, block, 1, 1, smem, d.stream, a.params()); err != nil {
		return fmt.Errorf("cuda: launching %s (grid %d×%d, block %d, smem %d): %w", name, grid, gridY, block, smem, err)
	}
	return nil
}
