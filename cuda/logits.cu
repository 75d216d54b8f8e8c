// Full-vocabulary statistics and top-K candidates of the logits, so only a few hundred
// bytes per sequence cross to the host (the sampler never sees the whole vector).
#include "common.cuh"
#include <limits.h>

#define LN2 0.69314718055994530942

// out[row] = {ln Z, entropy bits, varentropy bits^2} of softmax(logits[row]), in float64
// like sampler/metrics.LogitStats (same passes: max, Z and E[s], then the centred
// second moment). grid: rows; block: any multiple of 32 up to 512. The bounds keep the
// JIT (the driver's, whatever its version) within 128 registers a thread, so the
// pipeline's 512-thread launch cannot fail for lack of registers; the minimum of one
// block per SM stops ptxas from squeezing to 32 registers for full occupancy (it
// spilled then, for sm_90), which a grid of one block per row never uses.
extern "C" __global__ void __launch_bounds__(512, 1) logit_stats(const float* __restrict__ logits, int vocab, double* __restrict__ out) {
    const float* row = logits + (size_t)blockIdx.x * vocab;
    float mx = -CUDART_INF_F;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) mx = fmaxf(mx, row[i]);
    double m = (double)block_max_f(mx);
    double z = 0.0, es = 0.0;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
        double s = (double)row[i] - m;
        if (isinf(s)) continue;
        double e = exp(s);
        z += e;
        es += e * s;
    }
    z = block_sum_d(z);
    es = block_sum_d(es) / z;
    double v = 0.0;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
        double s = (double)row[i] - m;
        if (isinf(s)) continue;
        double d = s - es;
        v += exp(s) * d * d;
    }
    v = block_sum_d(v) / z;
    if (threadIdx.x == 0) {
        double lnZ = log(z);
        out[3 * blockIdx.x] = lnZ + m;
        out[3 * blockIdx.x + 1] = (lnZ - es) / LN2;
        out[3 * blockIdx.x + 2] = v / (LN2 * LN2);
    }
}

// before reports whether (va, ia) ranks above (vb, ib): higher logit, ties by lower id
// (sampler/metrics.TopK's order).
__device__ __forceinline__ bool before(float va, int ia, float vb, int ib) {
    return va > vb || (va == vb && ia < ib);
}

// One stage of the top-K reduction. Each row of vals holds n entries (ids: their token
// ids, or NULL when the entry index is the id); each block bitonic-sorts one chunk of
// 2*blockDim.x entries in shared memory and writes its best k to
// outVals/outIds[row][chunk][k]. The host repeats stages until one chunk is left.
// grid: (chunks, rows). Dynamic shared memory: 2*blockDim.x * (4 + 4) bytes.
extern "C" __global__ void __launch_bounds__(1024) topk_chunks(const float* __restrict__ vals, const int* __restrict__ ids, int n, int k,
                                       float* __restrict__ outVals, int* __restrict__ outIds) {
    extern __shared__ float sv[];
    int chunk = 2 * blockDim.x;
    int* si = reinterpret_cast<int*>(sv + chunk);
    const float* rv = vals + (size_t)blockIdx.y * n;
    const int* ri = ids ? ids + (size_t)blockIdx.y * n : nullptr;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
        int src = blockIdx.x * chunk + i;
        if (src < n) {
            float v = rv[src];
            sv[i] = v != v ? -CUDART_INF_F : v; // NaN never ranks
            si[i] = ri ? ri[src] : src;
        } else {
            sv[i] = -CUDART_INF_F;
            si[i] = INT_MAX; // padding ranks below every real entry
        }
    }
    __syncthreads();
    for (int size = 2; size <= chunk; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
                int p = i ^ stride;
                if (p > i) {
                    bool up = (i & size) == 0; // this run sorts best-first
                    bool swap = up ? before(sv[p], si[p], sv[i], si[i]) : before(sv[i], si[i], sv[p], si[p]);
                    if (swap) {
                        float tv = sv[i];
                        sv[i] = sv[p];
                        sv[p] = tv;
                        int ti = si[i];
                        si[i] = si[p];
                        si[p] = ti;
                    }
                }
            }
            __syncthreads();
        }
    }
    size_t o = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * k;
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        outVals[o + i] = sv[i];
        outIds[o + i] = si[i];
    }
}
