// Shared device helpers for the entropix-eval kernels. Every kernel is extern "C" so the
// Go side finds it by its plain name in the PTX; blocks are a multiple of 32 threads.
#pragma once
#include <cuda_bf16.h>
#include <math_constants.h>

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum_f(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ double warp_sum_d(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ float warp_max_f(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

// Block-wide reductions: every thread gets the result. The leading barrier lets one
// kernel call them repeatedly with the same scratch.
__device__ __forceinline__ float block_sum_f(float v) {
    __shared__ float buf[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum_f(v);
    __syncthreads();
    if (lane == 0) buf[w] = v;
    __syncthreads();
    return warp_sum_f(lane < nw ? buf[lane] : 0.f);
}

__device__ __forceinline__ double block_sum_d(double v) {
    __shared__ double buf[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum_d(v);
    __syncthreads();
    if (lane == 0) buf[w] = v;
    __syncthreads();
    return warp_sum_d(lane < nw ? buf[lane] : 0.0);
}

__device__ __forceinline__ float block_max_f(float v) {
    __shared__ float buf[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max_f(v);
    __syncthreads();
    if (lane == 0) buf[w] = v;
    __syncthreads();
    return warp_max_f(lane < nw ? buf[lane] : -CUDART_INF_F);
}

// dot of a float query row (shared memory) with a bf16 key row of even length.
__device__ __forceinline__ float dot_q_bf16(const float* q, const __nv_bfloat16* k, int n) {
    float s = 0.f;
    for (int d = 0; d < n; d += 2) {
        float2 kv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(k + d));
        s = fmaf(q[d], kv.x, s);
        s = fmaf(q[d + 1], kv.y, s);
    }
    return s;
}
