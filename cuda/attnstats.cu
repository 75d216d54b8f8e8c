// Entropix attention statistics of the metric layer at each output's last query
// position, straight from the KV cache: per-head softmax entropy (bits), agreement and
// interaction strength, in masked or padded mode (docs/ENTROPIX.md). It mirrors
// sampler/metrics.AttnStats.Compute pass for pass; the host finishes the cheap
// across-head mean and variances from the head entropies.
#include "common.cuh"

#define PROB_CLIP 1e-10

// One block per output row b: query row rows[b] of the step's tokens. out is
// [rows][heads + 2]: heads entropies, then agreement, then interaction strength.
// Scores are recomputed in every pass instead of stored: a row is at most a few
// thousand keys and this runs once per step on one layer.
// Dynamic shared memory: 2*heads doubles + heads*headDim floats.
extern "C" __global__ void attn_stats(const float* __restrict__ q, const int* __restrict__ rows,
                                      const int* __restrict__ pos, const int* __restrict__ slot,
                                      const __nv_bfloat16* __restrict__ kc, double* __restrict__ out, int heads,
                                      int kvHeads, int headDim, int maxSeq, int padded, int padLen, float scale) {
    extern __shared__ double dsm[];
    double* hmax = dsm;
    double* hz = dsm + heads;
    float* qs = reinterpret_cast<float*>(dsm + 2 * heads);
    int t = rows[blockIdx.x], nKeys = pos[t] + 1, s = slot[t], group = heads / kvHeads;
    int nEmpty = padded ? padLen - nKeys : 0;
    for (int i = threadIdx.x; i < heads * headDim; i += blockDim.x) qs[i] = q[(size_t)t * heads * headDim + i] * scale;
    __syncthreads();

    double* o = out + (size_t)blockIdx.x * (heads + 2);
    double absSum = 0.0;
    for (int h = 0; h < heads; h++) {
        const float* qh = qs + h * headDim;
        const __nv_bfloat16* kb = kc + ((size_t)s * kvHeads + h / group) * maxSeq * headDim;
        float mx = nEmpty > 0 ? 0.f : -CUDART_INF_F;
        for (int j = threadIdx.x; j < nKeys; j += blockDim.x) {
            float sc = dot_q_bf16(qh, kb + (size_t)j * headDim, headDim);
            mx = fmaxf(mx, sc);
            absSum += fabs((double)sc);
        }
        double m = (double)block_max_f(mx);
        double z = 0.0;
        for (int j = threadIdx.x; j < nKeys; j += blockDim.x)
            z += exp((double)dot_q_bf16(qh, kb + (size_t)j * headDim, headDim) - m);
        z = block_sum_d(z);
        if (nEmpty > 0) z += (double)nEmpty * exp(-m);
        double ent = 0.0;
        for (int j = threadIdx.x; j < nKeys; j += blockDim.x) {
            double p = exp((double)dot_q_bf16(qh, kb + (size_t)j * headDim, headDim) - m) / z;
            ent -= p * log2(fmax(p, PROB_CLIP));
        }
        ent = block_sum_d(ent);
        if (threadIdx.x == 0) {
            if (nEmpty > 0) {
                double e = exp(-m) / z;
                ent -= (double)nEmpty * e * log2(fmax(e, PROB_CLIP));
            }
            o[h] = ent;
            hmax[h] = m;
            hz[h] = z;
        }
    }
    __syncthreads();

    double agree = 0.0;
    for (int j = threadIdx.x; j < nKeys; j += blockDim.x) {
        double mean = 0.0;
        for (int h = 0; h < heads; h++) {
            const __nv_bfloat16* kr = kc + (((size_t)s * kvHeads + h / group) * maxSeq + j) * headDim;
            mean += exp((double)dot_q_bf16(qs + h * headDim, kr, headDim) - hmax[h]) / hz[h];
        }
        mean /= heads;
        for (int h = 0; h < heads; h++) {
            const __nv_bfloat16* kr = kc + (((size_t)s * kvHeads + h / group) * maxSeq + j) * headDim;
            agree += fabs(exp((double)dot_q_bf16(qs + h * headDim, kr, headDim) - hmax[h]) / hz[h] - mean);
        }
    }
    agree = block_sum_d(agree);
    absSum = block_sum_d(absSum);
    if (threadIdx.x == 0) {
        if (nEmpty > 0) {
            // Every empty slot of a head has the same probability: one column, weighted.
            double mean = 0.0, col = 0.0;
            for (int h = 0; h < heads; h++) mean += exp(-hmax[h]) / hz[h];
            mean /= heads;
            for (int h = 0; h < heads; h++) col += fabs(exp(-hmax[h]) / hz[h] - mean);
            agree += (double)nEmpty * col;
        }
        double cells = (double)heads * (double)(nKeys + nEmpty);
        o[heads] = agree / cells;
        o[heads + 1] = absSum / cells;
    }
}
