//go:build cuda

package cuda

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"gorgonia.org/cu"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Built reports whether this binary has the GPU backend.
const Built = true

// Engine implements engine.Engine on one NVIDIA GPU. Its methods are safe to call
// from several goroutines; Step calls are serialised. The runner uses one Engine per
// device.
type Engine struct {
	mu sync.Mutex
	*pipeline
	dev    *device
	blas   *cublas
	closed bool
}

var (
	_ engine.Engine       = (*Engine)(nil)
	_ engine.PrefixSharer = (*Engine)(nil)
)

// gpu is the pipeline's backend on a real device.
type gpu struct {
	*device
	blas *cublas
}

func (g gpu) gemm(w, x, y dptr, rows, n, k int, beta float32) error {
	return g.blas.gemm(rowMajorGemm(w, x, y, rows, n, k, beta))
}

// New loads m onto GPU device (0-based) for opts. The model may be closed afterwards:
// its weights are copied to the device. An oversized request fails before any
// allocation with what would fit.
func New(m *engine.Model, opts engine.Options, device int) (engine.Engine, error) {
	e, err := newEngine(m, opts, device)
	if err != nil {
		return nil, err
	}
	return e, nil
}

func newEngine(m *engine.Model, opts engine.Options, device int) (*Engine, error) {
	p, err := newPipeline(m, opts)
	if err != nil {
		return nil, fmt.Errorf("cuda engine: %w", err)
	}
	e := &Engine{pipeline: p}
	// Driver calls act on the calling thread's current context: stay on one thread
	// from openDevice (which makes the context current) to the last upload.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if e.dev, err = openDevice(device); err != nil {
		return nil, fmt.Errorf("cuda engine: %w", err)
	}
	if err := e.setup(m); err != nil {
		_ = e.release()
		return nil, fmt.Errorf("cuda engine: model %s on GPU %d (%s): %w", m.Dir, device, e.dev.name, err)
	}
	return e, nil
}

// setup checks the memory budget against what the device has free, opens cuBLAS and
// lets the pipeline allocate and upload.
func (e *Engine) setup(m *engine.Model) error {
	free, _, err := cu.MemInfo()
	if err != nil {
		return fmt.Errorf("cuMemGetInfo: %w", err)
	}
	e.opts = fitPrefixCache(&e.cfg, e.opts, free)
	e.plan = planMemory(&e.cfg, e.opts)
	if err := checkFits(&e.cfg, e.opts, free, e.dev.ordinal); err != nil {
		return err
	}
	if e.blas, err = openCublas(e.dev.stream); err != nil {
		return err
	}
	return e.pipeline.setup(m, gpu{e.dev, e.blas})
}

func (e *Engine) Config() *engine.Config  { return &e.cfg }
func (e *Engine) Options() engine.Options { return e.opts }

// Step appends each input's tokens to its slot, runs the batched forward on the GPU
// and fills one Output per input (see engine.Engine).
func (e *Engine) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	if out == nil {
		return errors.New("cuda engine: step: nil output slice")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("cuda engine: step after Close")
	}
	unbind, err := e.dev.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := e.step(ctx, in, out); err != nil {
		return fmt.Errorf("cuda engine: step: %w", err)
	}
	return nil
}

// Len returns the tokens in a slot's cache, or 0 for a slot out of range.
func (e *Engine) Len(slot int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if slot < 0 || slot >= len(e.lens) {
		return 0
	}
	return e.lens[slot]
}

// Free empties a slot. The cache needs no clearing: attention never reads past a
// slot's length, and the next sequence overwrites positions from 0.
func (e *Engine) Free(slot int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.free(slot)
}

// CachedPrefix implements engine.PrefixSharer.
func (e *Engine) CachedPrefix(prompt []int32) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0
	}
	return e.cachedPrefix(prompt)
}

// AttachPrefix implements engine.PrefixSharer: the stored blocks are copied into
// the slot on the device (cuMemcpyDtoDAsync on the engine's stream).
func (e *Engine) AttachPrefix(slot int, prompt []int32) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, errors.New("cuda engine: attach prefix after Close")
	}
	unbind, err := e.dev.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	n, err := e.attachPrefix(slot, prompt)
	if err != nil {
		return 0, fmt.Errorf("cuda engine: %w", err)
	}
	return n, nil
}

// DeviceName is the GPU's name (for run manifests).
func (e *Engine) DeviceName() string { return e.dev.name }

// ScoresTokens implements engine.TokenScorer (pipeline_score.go).
func (e *Engine) ScoresTokens() bool { return true }

var _ engine.TokenScorer = (*Engine)(nil)

// Close frees the device memory and the cuBLAS handle.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	unbind, err := e.dev.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return e.release()
}

func (e *Engine) release() error {
	errs := []error{e.blas.close()}
	if e.dev != nil {
		errs = append(errs, e.dev.close())
	}
	return errors.Join(errs...)
}
