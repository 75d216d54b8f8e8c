// Small kernels with one known defect each, for the simulator's own tests.
#include <cuda_bf16.h>
#include <math_constants.h>

extern "C" __global__ void add_one(const float* __restrict__ in, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1.f;
}

// Writes one float per thread without checking n.
extern "C" __global__ void unchecked_write(float* out, int n) { out[blockIdx.x * blockDim.x + threadIdx.x] = (float)n; }

// Reverses a block through shared memory; sync 0 leaves out the barrier.
extern "C" __global__ void __launch_bounds__(256) reverse_block(const float* in, float* out, int sync) {
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    if (sync) __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// Sums over the warp and broadcasts lane (src) of each warp.
extern "C" __global__ void warp_ops(const float* in, float* sum, float* bcast, int src) {
    float v = in[threadIdx.x];
    float s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    sum[threadIdx.x] = s;
    bcast[threadIdx.x] = __shfl_sync(0xffffffffu, v, src);
}

// Only odd lanes shuffle.
extern "C" __global__ void divergent_shuffle(float* out) {
    float v = (float)threadIdx.x;
    if (threadIdx.x & 1) v = __shfl_sync(0xffffffffu, v, 0);
    out[threadIdx.x] = v;
}

// Only the first warp reaches the barrier.
extern "C" __global__ void divergent_barrier(float* out) {
    if (threadIdx.x < 32) __syncthreads();
    out[threadIdx.x] = 1.f;
}

// Each thread writes floats [stride*t, stride*t + stride) of the dynamic shared memory.
extern "C" __global__ void dynamic_fill(float* out, int stride) {
    extern __shared__ float dyn[];
    for (int i = 0; i < stride; i++) dyn[threadIdx.x * stride + i] = (float)i;
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x * stride];
}

// A 16-byte load from in + off floats.
extern "C" __global__ void vector_load(const float* in, float* out, int off) {
    float4 v = *reinterpret_cast<const float4*>(in + off);
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Reads shared memory nobody wrote.
extern "C" __global__ void uninitialised_shared(float* out) {
    __shared__ float s[64];
    if (threadIdx.x >= 64) s[threadIdx.x - 64] = 0.f; // never, with 64 threads
    out[threadIdx.x] = s[threadIdx.x];
}

// Rounds to bf16 and back.
extern "C" __global__ void bf16_round(const float* in, __nv_bfloat16* out, float* back, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        out[i] = __float2bfloat16(in[i]);
        back[i] = __bfloat162float(out[i]);
    }
}

// Block-wide sum with the same barrier pattern as common.cuh, over a 2-D grid.
extern "C" __global__ void block_sums(const double* in, double* out, long long n) {
    __shared__ double buf[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    size_t row = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    double v = 0;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) v += in[row * n + i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) buf[w] = v;
    __syncthreads();
    v = lane < nw ? buf[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[row] = v;
}
