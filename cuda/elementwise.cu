// Row-wise and element-wise kernels of the transformer layer: embedding lookup,
// RMSNorm, the SiLU gate and bias adds. The residual stream stays float32; GEMM inputs
// are bf16.
#include "common.cuh"

// x[t] = table[ids[t]] widened to float. grid: tokens; block: any multiple of 32.
extern "C" __global__ void embed_rows(const __nv_bfloat16* __restrict__ table, const int* __restrict__ ids,
                                      float* __restrict__ x, int hidden) {
    const __nv_bfloat16* row = table + (size_t)ids[blockIdx.x] * hidden;
    float* out = x + (size_t)blockIdx.x * hidden;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) out[i] = __bfloat162float(row[i]);
}

// out[r] = w * x[src] / sqrt(mean(x[src]^2) + eps), src = rows ? rows[r] : r, so the final
// norm can gather only the rows whose logits are needed. grid: output rows.
extern "C" __global__ void rmsnorm_bf16(const float* __restrict__ x, const int* __restrict__ rows,
                                        const float* __restrict__ w, __nv_bfloat16* __restrict__ out,
                                        int hidden, float eps) {
    int src = rows ? rows[blockIdx.x] : blockIdx.x;
    const float* xr = x + (size_t)src * hidden;
    float ss = 0.f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) ss = fmaf(xr[i], xr[i], ss);
    ss = block_sum_f(ss);
    float inv = rsqrtf(ss / (float)hidden + eps);
    __nv_bfloat16* o = out + (size_t)blockIdx.x * hidden;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) o[i] = __float2bfloat16(w[i] * (xr[i] * inv));
}

// gu is [tokens][2*inter] (gate columns, then up columns, from one fused GEMM);
// out[t][i] = silu(gate) * up in bf16 for the down projection. 1-D grid-stride.
extern "C" __global__ void silu_mul(const float* __restrict__ gu, __nv_bfloat16* __restrict__ out, int inter,
                                    long long total) {
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long t = idx / inter;
        int i = (int)(idx - t * inter);
        float g = gu[t * 2 * inter + i];
        float u = gu[t * 2 * inter + inter + i];
        out[idx] = __float2bfloat16(g / (1.f + expf(-g)) * u);
    }
}

// x[t][i] += bias[i] over a [rows][n] matrix. 1-D grid-stride.
extern "C" __global__ void add_bias(float* __restrict__ x, const float* __restrict__ bias, int n, long long total) {
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        x[idx] += bias[idx % n];
    }
}
