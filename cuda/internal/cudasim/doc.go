// Package cudasim runs CUDA kernel sources on the CPU, so that the GPU backend's
// kernels are exercised line by line on machines without a GPU.
//
// Build compiles the unmodified .cu files with the system C++ compiler against
// csrc/cudasim.h (the CUDA dialect the kernels use: threadIdx and friends, __shared__,
// __syncthreads, the warp shuffles, the bf16 conversions) and links them with
// the runtime (csrc/api.cc, fibers.cc, memory.cc) into a shared library; Load (build tag cudasim, cgo) opens it. The
// kernel code is compiled with GCC's ThreadSanitizer instrumentation, whose hooks are
// ours: every load and store of a kernel is checked against the device allocations,
// the launch's dynamic shared memory and a shadow of shared memory that finds races
// between barriers. The threads of a block run as fibers that switch at barriers and
// shuffles, so a barrier or shuffle that not every thread reaches deadlocks and is
// reported instead of passing by sequential luck.
//
// Only the build tag cudasim pulls in cgo; Build and the source scanning are plain Go.
package cudasim
