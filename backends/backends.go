// Package backends starts the engines a sweep's backend names: the pure-Go CPU
// engine (engine/cpu) and, in builds with the cuda tag, the GPU one (package
// cuda); and the Python interpreter of --python-hooks (pyhooks, eval/pytask).
// eval.Open takes them as its eval.Backends, so package eval links no engine
// and no bridge itself.
package backends

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/cuda"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// Builtin is the CPU and CUDA backends and the Python bridge.
var Builtin eval.Backends = builtin{}

type builtin struct{}

// Opener starts one worker's engine on its device: "cpu" for the CPU backend,
// "cuda" or "cuda:N" for GPU N (a bare "cuda" takes the worker's index, so
// `devices: [cuda, cuda]` spreads two workers over GPUs 0 and 1).
func (builtin) Opener(backend string, model *engine.Model, opts engine.Options) (eval.EngineOpener, error) {
	switch backend {
	case "cpu":
		return func(_ context.Context, _ int, _ string) (eval.Engine, func() error, error) {
			e, err := cpu.New(model, opts)
			if err != nil {
				return nil, nil, err
			}
			return e, e.Close, nil
		}, nil
	case "cuda":
		if !cuda.Built {
			return nil, fmt.Errorf("backend cuda: %w", cuda.ErrNotBuilt)
		}
		return func(_ context.Context, worker int, device string) (eval.Engine, func() error, error) {
			gpu, err := gpuIndex(device, worker)
			if err != nil {
				return nil, nil, err
			}
			e, err := cuda.New(model, opts, gpu)
			if err != nil {
				return nil, nil, err
			}
			return e, e.Close, nil
		}, nil
	}
	return nil, fmt.Errorf("%w: backend %q: want cpu or cuda", usage.Err, backend)
}

// MaxSlots is the most slots of the CPU engine that fit in memory at opts,
// capped at limit; the CUDA backend sizes its memory only once its device is open.
func (builtin) MaxSlots(backend string, model *engine.Model, opts engine.Options, limit int) (int, error) {
	if backend != "cpu" {
		return 0, fmt.Errorf("%w: --batch-size auto: only the cpu backend can size its batch before opening the device; give a number for %s", usage.Err, backend)
	}
	n, _, err := cpu.MaxSlots(model, opts, limit)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("--batch-size auto: not even one sequence of %d tokens fits in the memory available", opts.MaxSeqLen)
	}
	return n, nil
}

// gpuIndex reads the N of "cuda:N"; a bare "cuda" means the worker's own index.
func gpuIndex(device string, worker int) (int, error) {
	_, n, ok := strings.Cut(device, ":")
	if !ok {
		return worker, nil
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("device %q: want cuda:N with N a GPU index", device)
	}
	return i, nil
}
