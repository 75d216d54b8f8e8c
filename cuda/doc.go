// Package cuda is the NVIDIA GPU backend of engine.Engine: the same batched Llama /
// Qwen2 forward pass as engine/cpu, with BF16 weights and KV cache on the device,
// cuBLAS GEMMs (BF16 inputs, FP32 accumulation) and hand-written kernels (*.cu,
// compiled to the PTX in ptx/ and embedded) for everything else, including the
// Entropix statistics: only top-K candidates and a few numbers per sequence come back
// to the host, so the one Go sampler serves both backends.
//
// The device code is behind the `cuda` build tag, because gorgonia.org/cu links
// libcuda and exits the process at init where no driver or GPU is present. Without
// the tag, New returns ErrNotBuilt. The shape planning, memory budget, weight packing,
// launch geometry and PTX checks are plain Go, built and tested everywhere; with the
// cudasim tag the tests run the kernels' CUDA source on the CPU (internal/cudasim).
package cuda
