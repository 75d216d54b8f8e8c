// Full-vocabulary statistics and top-K candidates of the logits, so only a few hundred
// bytes per sequence cross to the host (the sampler never sees the whole vector).
// Both spread a row over many blocks and finish in a fixed order, without atomics: a
// row's result does not depend on block scheduling or on the other rows of the batch.
#include "common.cuh"
#include <limits.h>

#define LN2 0.69314718055994530942

// First stage of {ln Z, entropy, varentropy} of softmax(logits[row]), in float64 like
// sampler/metrics.LogitStats. Block (part, row) takes entries [part*chunk, +chunk) of
// its row and writes parts[row][part] = {m, z, mean, M2}: its max m, z = Σ e^(x−m),
// mean = Σ e^(x−m)(x−m) / z and the centred M2 = Σ e^(x−m)(x−m−mean)², the same three
// passes as metrics.LogitStats over the chunk. -Inf entries add nothing (a chunk of only
// -Inf has z = 0, which logit_stats_finish skips); a NaN poisons z, as it does there.
// grid: (parts, rows); block: any multiple of 32 up to 256.
extern "C" __global__ void logit_stats_part(const float* __restrict__ logits, int vocab, int chunk, double* __restrict__ parts) {
    const float* row = logits + (size_t)blockIdx.y * vocab;
    int lo = blockIdx.x * chunk, hi = min(vocab, lo + chunk);
    float mx = -CUDART_INF_F;
    for (int i = lo + threadIdx.x; i < hi; i += blockDim.x) mx = fmaxf(mx, row[i]);
    double m = (double)block_max_f(mx);
    double z = 0.0, es = 0.0;
    for (int i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        float x = row[i];
        if (x == -CUDART_INF_F) continue;
        double s = (double)x - m;
        double e = exp(s);
        z += e;
        es += e * s;
    }
    z = block_sum_d(z);
    double mean = block_sum_d(es) / z;
    double v = 0.0;
    for (int i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        float x = row[i];
        if (x == -CUDART_INF_F) continue;
        double s = (double)x - m;
        double d = s - mean;
        v += exp(s) * d * d;
    }
    v = block_sum_d(v);
    if (threadIdx.x == 0) {
        double* o = parts + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 4;
        o[0] = m;
        o[1] = z;
        o[2] = mean;
        o[3] = v;
    }
}

// Second stage: one warp per row combines its nParts chunks (Chan et al.'s pairwise
// update, in float64): with the row max M, chunk b weighs w_b = z_b e^(m_b−M) and its
// mean of x−M is d_b = m_b − M + mean_b; Z = Σ w_b, μ = Σ w_b d_b / Z and
// M2 = Σ e^(m_b−M) M2_b + w_b (d_b − μ)². Lane l takes chunks l, l+32, … in order and the
// lanes add by a fixed butterfly, so the order never changes. out[row] = {ln Z + M,
// (ln Z − μ)/ln 2, M2/Z/ln² 2}; NaN when the row max is ±Inf or NaN, as in
// metrics.LogitStats. grid: rows; block: 32.
extern "C" __global__ void logit_stats_finish(const double* __restrict__ parts, int nParts, double* __restrict__ out) {
    const double* p = parts + (size_t)blockIdx.x * nParts * 4;
    int lane = threadIdx.x;
    double m = -CUDART_INF;
    for (int b = lane; b < nParts; b += 32) m = fmax(m, p[4 * b]);
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(FULL_MASK, m, o));
    double z = 0.0, s1 = 0.0;
    for (int b = lane; b < nParts; b += 32) {
        if (p[4 * b + 1] == 0.0) continue; // only -Inf entries
        double f = exp(p[4 * b] - m), w = p[4 * b + 1] * f;
        z += w;
        s1 += w * (p[4 * b] - m + p[4 * b + 2]);
    }
    z = warp_sum_d(z);
    double mu = warp_sum_d(s1) / z;
    double m2 = 0.0;
    for (int b = lane; b < nParts; b += 32) {
        if (p[4 * b + 1] == 0.0) continue;
        double f = exp(p[4 * b] - m), w = p[4 * b + 1] * f, d = p[4 * b] - m + p[4 * b + 2] - mu;
        m2 += p[4 * b + 3] * f + w * d * d;
    }
    m2 = warp_sum_d(m2) / z;
    if (lane == 0) {
        double* o = out + 3 * blockIdx.x;
        if (isinf(m) || isnan(m)) {
            o[0] = o[1] = o[2] = CUDART_NAN;
        } else {
            double lnZ = log(z);
            o[0] = lnZ + m;
            o[1] = (lnZ - mu) / LN2;
            o[2] = m2 / (LN2 * LN2);
        }
    }
}

// before reports whether (va, ia) ranks above (vb, ib): higher logit, ties by lower id
// (sampler/metrics.TopK's order).
__device__ __forceinline__ bool before(float va, int ia, float vb, int ib) {
    return va > vb || (va == vb && ia < ib);
}

// rank_key maps a logit (not NaN) to an unsigned key in the same order; -0 and +0,
// equal as floats, get one key.
__device__ __forceinline__ unsigned rank_key(float v) {
    unsigned u = (unsigned)__float_as_int(v == 0.f ? 0.f : v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// block_count returns the block's sum of c (every thread gets it) through one of two
// alternating rows of buf: a caller alternates which, so the barrier of each call also
// orders the reads of the call before it with the writes of the call after.
__device__ __forceinline__ int block_count(int c, int* buf) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(FULL_MASK, c, o);
    if (lane == 0) buf[w] = c;
    __syncthreads();
    int t = 0;
    for (int i = 0; i < nw; i++) t += buf[i];
    return t;
}

#define TOPK_PER_THREAD 8 // entries a thread holds: a chunk is TOPK_PER_THREAD * blockDim.x

// One stage of the top-K reduction. Each row of vals holds n entries (ids: their token
// ids, or NULL when the entry index is the id); block (chunk, row) takes one chunk and
// writes its best k, best first, to outVals/outIds[row][chunk][k] — the same entries in
// the same order as sorting the whole chunk, without sorting it: the k-th best key T is
// found bit by bit (32 block counts of the keys at or above a candidate), then, when
// more entries equal T than are left to take, the largest id C still needed (31 counts),
// the chosen k are gathered by a prefix count in thread order and only they are
// bitonic-sorted. Past n the chunk is padded with (-Inf, INT_MAX), below every real
// entry; NaN ranks as -Inf. The host repeats stages until one chunk is left.
// grid: (chunks, rows); block: a multiple of 32 up to 1024. Dynamic shared memory:
// kp * (4 + 4) bytes, kp the least power of two >= k.
extern "C" __global__ void topk_select(const float* __restrict__ vals, const int* __restrict__ ids, int n, int k,
                                       float* __restrict__ outVals, int* __restrict__ outIds) {
    extern __shared__ float sv[];
    __shared__ int cnt[2][32];
    int kp = 1;
    while (kp < k) kp <<= 1;
    int* si = reinterpret_cast<int*>(sv + kp);
    const float* rv = vals + (size_t)blockIdx.y * n;
    const int* ri = ids ? ids + (size_t)blockIdx.y * n : nullptr;
    int base = blockIdx.x * TOPK_PER_THREAD * blockDim.x;
    float v[TOPK_PER_THREAD];
    int id[TOPK_PER_THREAD];
    unsigned key[TOPK_PER_THREAD];
#pragma unroll
    for (int j = 0; j < TOPK_PER_THREAD; j++) {
        int src = base + j * blockDim.x + threadIdx.x;
        if (src < n) {
            float x = rv[src];
            v[j] = x != x ? -CUDART_INF_F : x; // NaN never ranks
            id[j] = ri ? ri[src] : src;
        } else {
            v[j] = -CUDART_INF_F;
            id[j] = INT_MAX; // padding ranks below every real entry
        }
        key[j] = rank_key(v[j]);
    }
    int call = 0;
    // T: the largest key with at least k entries at or above it.
    unsigned T = 0;
    for (int b = 31; b >= 0; b--) {
        unsigned c = T | (1u << b);
        int n1 = 0;
#pragma unroll
        for (int j = 0; j < TOPK_PER_THREAD; j++) n1 += key[j] >= c;
        if (block_count(n1, cnt[call++ & 1]) >= k) T = c;
    }
    int n2 = 0;
#pragma unroll
    for (int j = 0; j < TOPK_PER_THREAD; j++) n2 += (key[j] > T) | ((key[j] == T) << 16);
    n2 = block_count(n2, cnt[call++ & 1]);
    int need = k - (n2 & 0xffff), eq = n2 >> 16;
    // C: among the entries equal to T, the need lowest ids are those up to C.
    unsigned C = INT_MAX;
    if (eq > need) {
        C = 0;
        for (int b = 30; b >= 0; b--) {
            unsigned c = C | (1u << b);
            int n3 = 0;
#pragma unroll
            for (int j = 0; j < TOPK_PER_THREAD; j++) n3 += key[j] == T && (unsigned)id[j] < c;
            if (block_count(n3, cnt[call++ & 1]) < need) C = c;
        }
    }
    // Taken: every entry above T or equal to it with an id below C (a of them), then
    // the first k − a equal to T with id C (only padding repeats an id) in thread order.
    int mine = 0;
#pragma unroll
    for (int j = 0; j < TOPK_PER_THREAD; j++) {
        bool eqT = key[j] == T;
        mine += (key[j] > T || (eqT && (unsigned)id[j] < C)) | ((eqT && (unsigned)id[j] == C) << 16);
    }
    // Exclusive prefix of mine over the threads: within the warp, then across warps.
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int incl = mine;
    for (int o = 1; o < 32; o <<= 1) {
        int up = __shfl_up_sync(FULL_MASK, incl, o);
        if (lane >= o) incl += up;
    }
    int* wsum = cnt[call++ & 1];
    if (lane == 31) wsum[w] = incl;
    __syncthreads();
    int before_w = 0, total = 0;
    for (int i = 0; i < nw; i++) {
        if (i < w) before_w += wsum[i];
        total += wsum[i];
    }
    int pre = before_w + incl - mine;
    int a = total & 0xffff, posA = pre & 0xffff, rankB = pre >> 16;
#pragma unroll
    for (int j = 0; j < TOPK_PER_THREAD; j++) {
        bool eqT = key[j] == T;
        int at = -1;
        if (key[j] > T || (eqT && (unsigned)id[j] < C)) {
            at = posA++;
        } else if (eqT && (unsigned)id[j] == C) {
            if (rankB < k - a) at = a + rankB;
            rankB++;
        }
        if (at >= 0) {
            sv[at] = v[j];
            si[at] = id[j];
        }
    }
    for (int i = k + threadIdx.x; i < kp; i += blockDim.x) {
        sv[i] = -CUDART_INF_F;
        si[i] = INT_MAX;
    }
    __syncthreads();
    for (int size = 2; size <= kp; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < kp; i += blockDim.x) {
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
