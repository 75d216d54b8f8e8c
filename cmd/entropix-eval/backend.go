package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/cuda"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/cpu"
	"github.com/entropix-eval/entropix-eval/eval"
)

// engineOpener starts one worker's engine on its device: "cpu" for the CPU backend,
// "cuda" or "cuda:N" for GPU N (a bare "cuda" takes the worker's index, so
// `devices: [cuda, cuda]` spreads two workers over GPUs 0 and 1).
func engineOpener(backend string, model *engine.Model, opts engine.Options) (eval.EngineOpener, error) {
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
	return nil, fmt.Errorf("%w: backend %q: want cpu or cuda", errUsage, backend)
}

// computeDType is the dtype a backend computes in, for manifests and the run
// fingerprint: the CPU backend runs float32 throughout (weights widened in the
// kernels, float32 KV cache); the CUDA backend keeps weights, GEMM inputs and the KV
// cache in BF16 (FP32 accumulation).
func computeDType(backend string) string {
	if backend == "cuda" {
		return "BF16"
	}
	return "F32"
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
