// Entropix attention statistics of the metric layer at each output's last query
// position, straight from the KV cache: per-head softmax entropy (bits), agreement and
// interaction strength, in masked or padded mode (docs/ENTROPIX.md). Together the two
// kernels mirror sampler/metrics.AttnStats.Compute pass for pass; the host finishes the
// cheap across-head mean and variances from the head entropies.
//
// Three launches because agreement needs every head's max and partition function: one
// block per (output, head) for the per-head passes, then blocks over (output, chunk of
// keys) for agreement, then one thread per output adds the chunks up in order. A single block per output (the first version) ran every head's passes on
// one SM: 2 ms a decode step at batch 1 on an H100 for a Llama-3.2-1B shape, half the
// step (cuda/bench/window.sh profile, 2026-11-27).
#include "common.cuh"

#define PROB_CLIP 1e-10

// One block per (output b, head h): query row rows[b] of the step's tokens. Writes
// head h's entropy to out[b][h] (out is [rows][heads + 2]) and its max, partition
// function and sum of |score| to hs[b][h][0..2], which attn_agreement reads.
// Scores are recomputed in every pass instead of stored: a row is at most a few
// thousand keys and this runs once per step on one layer.
// grid: (rows, heads). Dynamic shared memory: headDim floats.
extern "C" __global__ void attn_head_stats(const float* __restrict__ q, const int* __restrict__ rows,
                                           const int* __restrict__ pos, const int* __restrict__ slot,
                                           const __nv_bfloat16* __restrict__ kc, double* __restrict__ out,
                                           double* __restrict__ hs, int heads, int kvHeads, int headDim, int maxSeq,
                                           int padded, int padLen, float scale) {
    extern __shared__ float qh[];
    int b = blockIdx.x, h = blockIdx.y;
    int t = rows[b], nKeys = pos[t] + 1, s = slot[t], group = heads / kvHeads;
    int nEmpty = padded ? padLen - nKeys : 0;
    for (int i = threadIdx.x; i < headDim; i += blockDim.x) qh[i] = q[((size_t)t * heads + h) * headDim + i] * scale;
    __syncthreads();

    const __nv_bfloat16* kb = kc + ((size_t)s * kvHeads + h / group) * maxSeq * headDim;
    float mx = nEmpty > 0 ? 0.f : -CUDART_INF_F;
    double absSum = 0.0;
    for (int j = threadIdx.x; j < nKeys; j += blockDim.x) {
        float sc = dot_q_bf16(qh, kb + (size_t)j * headDim, headDim);
        mx = fmaxf(mx, sc);
        absSum += fabs((double)sc);
    }
    double m = (double)block_max_f(mx);
    absSum = block_sum_d(absSum);
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
        out[(size_t)b * (heads + 2) + h] = ent;
        double* o = hs + ((size_t)b * heads + h) * 3;
        o[0] = m;
        o[1] = z;
        o[2] = absSum;
    }
}

// Blocks (b, c), after attn_head_stats: the sum over output b's keys in chunk c of
// |p_h(j) − mean_h p_h(j)| into part[b][c]. Chunk c holds the key tiles c, c + chunks,
// c + 2 chunks, ... (tiles of `tile` keys; chunks = gridDim.y), so the keys spread over
// the SMs even at batch 1 (one block per output took 0.4 ms a decode step on an H100
// for Llama-3.2-1B). For each tile the block computes the heads × tile probabilities
// into shared memory, one (head, key) pair a thread, then one thread a key takes the
// mean and the deviations over heads.
// grid: (rows, chunks). Dynamic shared memory: heads*tile + 2*heads doubles, then
// heads*headDim floats (attnAgreementSharedBytes).
extern "C" __global__ void attn_agreement(const float* __restrict__ q, const int* __restrict__ rows,
                                          const int* __restrict__ pos, const int* __restrict__ slot,
                                          const __nv_bfloat16* __restrict__ kc, const double* __restrict__ hs,
                                          double* __restrict__ part, int heads, int kvHeads, int headDim,
                                          int maxSeq, float scale, int tile) {
    extern __shared__ double dsm[];
    double* pt = dsm;                    // [heads][tile]
    double* hmax = dsm + heads * tile;   // [heads]
    double* hz = hmax + heads;           // [heads]
    float* qs = reinterpret_cast<float*>(hz + heads);
    int b = blockIdx.x, c = blockIdx.y, chunks = gridDim.y;
    int t = rows[b], nKeys = pos[t] + 1, s = slot[t], group = heads / kvHeads;
    const double* hb = hs + (size_t)b * heads * 3;
    for (int i = threadIdx.x; i < heads * headDim; i += blockDim.x) qs[i] = q[(size_t)t * heads * headDim + i] * scale;
    for (int h = threadIdx.x; h < heads; h += blockDim.x) {
        hmax[h] = hb[3 * h];
        hz[h] = hb[3 * h + 1];
    }
    __syncthreads();

    double agree = 0.0;
    for (int j0 = c * tile; j0 < nKeys; j0 += chunks * tile) {
        int n = min(tile, nKeys - j0);
        for (int i = threadIdx.x; i < heads * n; i += blockDim.x) {
            int h = i / n, j = j0 + i % n;
            const __nv_bfloat16* kr = kc + (((size_t)s * kvHeads + h / group) * maxSeq + j) * headDim;
            pt[h * tile + i % n] = exp((double)dot_q_bf16(qs + h * headDim, kr, headDim) - hmax[h]) / hz[h];
        }
        __syncthreads();
        if (threadIdx.x < n) {
            double mean = 0.0;
            for (int h = 0; h < heads; h++) mean += pt[h * tile + threadIdx.x];
            mean /= heads;
            for (int h = 0; h < heads; h++) agree += fabs(pt[h * tile + threadIdx.x] - mean);
        }
        __syncthreads();
    }
    agree = block_sum_d(agree);
    if (threadIdx.x == 0) part[(size_t)b * chunks + c] = agree;
}

// One thread per output b, after attn_agreement: agreement and interaction strength
// (mean |score|) into out[b][heads], out[b][heads + 1], from the chunks' partial sums
// (in chunk order, so the result does not depend on which block finished first) and
// attn_head_stats' per-head values. grid: rows; block: 32 (thread 0 works).
extern "C" __global__ void attn_agreement_finish(const int* __restrict__ rows, const int* __restrict__ pos,
                                                 const double* __restrict__ hs, const double* __restrict__ part,
                                                 double* __restrict__ out, int heads, int chunks, int padded,
                                                 int padLen) {
    if (threadIdx.x != 0) return;
    int b = blockIdx.x, nKeys = pos[rows[b]] + 1;
    int nEmpty = padded ? padLen - nKeys : 0;
    const double* hb = hs + (size_t)b * heads * 3;
    double agree = 0.0, absSum = 0.0;
    for (int c = 0; c < chunks; c++) agree += part[(size_t)b * chunks + c];
    for (int h = 0; h < heads; h++) absSum += hb[3 * h + 2];
    if (nEmpty > 0) {
        // Every empty slot of a head has the same probability: one column, weighted.
        double mean = 0.0, col = 0.0;
        for (int h = 0; h < heads; h++) mean += exp(-hb[3 * h]) / hb[3 * h + 1];
        mean /= heads;
        for (int h = 0; h < heads; h++) col += fabs(exp(-hb[3 * h]) / hb[3 * h + 1] - mean);
        agree += (double)nEmpty * col;
    }
    double cells = (double)heads * (double)(nKeys + nEmpty);
    out[(size_t)b * (heads + 2) + heads] = agree / cells;
    out[(size_t)b * (heads + 2) + heads + 1] = absSum / cells;
}
