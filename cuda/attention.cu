// Causal attention of every query token over its slot's KV cache. Prefill chunks and
// decode tokens go through the same kernel: a token at position p attends to cache
// entries 0..p of its slot, which already hold the chunk's own keys (qkv_rope_cache runs
// first), so slots of different lengths share one launch.
#include "common.cuh"

#define MAX_HB 8 // query heads per block (they share one kv head)
#define MAX_DL 8 // head dims per lane: headDim <= 256
// Blocks are at most 512 threads (attnMaxWarps in launch.go): ~121 registers each.

// grid: (tokens, heads / hb * splits); block: nw warps. Block (t, y) takes query heads
// h0 = (y % (heads / hb)) * hb, … and keys [split * span, +span) of row t, split =
// y / (heads / hb) (all keys when splits is 1; a split past the row's keys does
// nothing). Each warp walks its own 32-key chunks of them with an online softmax (one
// key per lane for the scores, one dim per lane for P·V); the warps' partial results
// merge through shared memory at the end, into out when splits is 1, else into
// partial[t][head][split] = {max, sum, unnormalised output[headDim]} for
// attention_combine. A row's arithmetic depends on its own keys, span and the warps
// only, never on the other rows.
// Dynamic shared memory (floats): hb*headDim (scaled queries) + nw*hb*headDim (partial
// outputs) + nw*hb*2 (running max and sum) — the Go side sizes it (attnSharedBytes).
extern "C" __global__ void __launch_bounds__(512) attention_cached(const float* __restrict__ q, const __nv_bfloat16* __restrict__ kc,
                                            const __nv_bfloat16* __restrict__ vc, const int* __restrict__ pos,
                                            const int* __restrict__ slot, __nv_bfloat16* __restrict__ out,
                                            float* __restrict__ partial, int heads, int kvHeads, int headDim, int maxSeq,
                                            int hb, int splits, int span, float scale) {
    extern __shared__ float smem[];
    int groups = heads / hb;
    int t = blockIdx.x, h0 = (blockIdx.y % groups) * hb, split = blockIdx.y / groups;
    int g = h0 / (heads / kvHeads);
    int nKeys = pos[t] + 1, s = slot[t];
    int jb = splits == 1 ? 0 : split * span, je = splits == 1 ? nKeys : min(nKeys, jb + span);
    if (jb >= je) return; // the whole block: this row has fewer splits than the launch
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float* qs = smem;
    float* part = qs + hb * headDim;
    float* ml = part + nw * hb * headDim;

    for (int i = threadIdx.x; i < hb * headDim; i += blockDim.x)
        qs[i] = q[((size_t)t * heads + h0) * headDim + i] * scale;
    __syncthreads();

    const size_t headBase = ((size_t)s * kvHeads + g) * maxSeq * headDim;
    const __nv_bfloat16* kb = kc + headBase;
    const __nv_bfloat16* vb = vc + headBase;

    float m[MAX_HB], l[MAX_HB], acc[MAX_HB][MAX_DL];
#pragma unroll
    for (int hh = 0; hh < MAX_HB; hh++) {
        m[hh] = -CUDART_INF_F;
        l[hh] = 0.f;
#pragma unroll
        for (int dl = 0; dl < MAX_DL; dl++) acc[hh][dl] = 0.f;
    }

    for (int j0 = jb + w * 32; j0 < je; j0 += nw * 32) {
        int j = j0 + lane;
        bool valid = j < je;
        float sc[MAX_HB];
#pragma unroll
        for (int hh = 0; hh < MAX_HB; hh++) sc[hh] = 0.f;
        if (valid) {
            const __nv_bfloat16* kr = kb + (size_t)j * headDim;
            if ((headDim & 7) == 0) {
                // 16-byte loads: each lane reads its own key row, 8 dims at a time.
                for (int d = 0; d < headDim; d += 8) {
                    uint4 raw = *reinterpret_cast<const uint4*>(kr + d);
                    float2 k0 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
                    float2 k1 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
                    float2 k2 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.z));
                    float2 k3 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.w));
#pragma unroll
                    for (int hh = 0; hh < MAX_HB; hh++) {
                        if (hh < hb) {
                            float4 qa = *reinterpret_cast<const float4*>(qs + hh * headDim + d);
                            float4 qb = *reinterpret_cast<const float4*>(qs + hh * headDim + d + 4);
                            sc[hh] += qa.x * k0.x + qa.y * k0.y + qa.z * k1.x + qa.w * k1.y + qb.x * k2.x +
                                      qb.y * k2.y + qb.z * k3.x + qb.w * k3.y;
                        }
                    }
                }
            } else {
                for (int d = 0; d < headDim; d += 2) {
                    float2 kv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(kr + d));
#pragma unroll
                    for (int hh = 0; hh < MAX_HB; hh++)
                        if (hh < hb) sc[hh] += qs[hh * headDim + d] * kv.x + qs[hh * headDim + d + 1] * kv.y;
                }
            }
        }
        // Lane 0 of a chunk is always a real key, so the chunk max is finite.
#pragma unroll
        for (int hh = 0; hh < MAX_HB; hh++) {
            if (hh < hb) {
                float sv = valid ? sc[hh] : -CUDART_INF_F;
                float mNew = fmaxf(m[hh], warp_max_f(sv));
                float corr = expf(m[hh] - mNew);
                float p = valid ? expf(sv - mNew) : 0.f;
                l[hh] = l[hh] * corr + warp_sum_f(p);
#pragma unroll
                for (int dl = 0; dl < MAX_DL; dl++) acc[hh][dl] *= corr;
                sc[hh] = p;
                m[hh] = mNew;
            }
        }
        int cnt = min(32, je - j0);
        for (int jj = 0; jj < cnt; jj++) {
            const __nv_bfloat16* vr = vb + (size_t)(j0 + jj) * headDim;
            float vv[MAX_DL];
#pragma unroll
            for (int dl = 0; dl < MAX_DL; dl++) {
                int d = lane + 32 * dl;
                vv[dl] = d < headDim ? __bfloat162float(vr[d]) : 0.f;
            }
#pragma unroll
            for (int hh = 0; hh < MAX_HB; hh++) {
                if (hh < hb) {
                    float p = __shfl_sync(FULL_MASK, sc[hh], jj);
#pragma unroll
                    for (int dl = 0; dl < MAX_DL; dl++) acc[hh][dl] = fmaf(p, vv[dl], acc[hh][dl]);
                }
            }
        }
    }

#pragma unroll
    for (int hh = 0; hh < MAX_HB; hh++) {
        if (hh < hb) {
#pragma unroll
            for (int dl = 0; dl < MAX_DL; dl++) {
                int d = lane + 32 * dl;
                if (d < headDim) part[(w * hb + hh) * headDim + d] = acc[hh][dl];
            }
            if (lane == 0) {
                ml[(w * hb + hh) * 2] = m[hh];
                ml[(w * hb + hh) * 2 + 1] = l[hh];
            }
        }
    }
    __syncthreads();

    // Merge: warps that saw no key have m = -inf and weigh exp(-inf) = 0.
    for (int i = threadIdx.x; i < hb * headDim; i += blockDim.x) {
        int hh = i / headDim, d = i - hh * headDim;
        float mx = -CUDART_INF_F;
        for (int ww = 0; ww < nw; ww++) mx = fmaxf(mx, ml[(ww * hb + hh) * 2]);
        float L = 0.f, o = 0.f;
        for (int ww = 0; ww < nw; ww++) {
            float f = expf(ml[(ww * hb + hh) * 2] - mx);
            L += ml[(ww * hb + hh) * 2 + 1] * f;
            o += part[(ww * hb + hh) * headDim + d] * f;
        }
        if (splits == 1) {
            out[((size_t)t * heads + h0 + hh) * headDim + d] = __float2bfloat16(o / L);
        } else {
            float* pr = partial + (((size_t)t * heads + h0 + hh) * splits + split) * (headDim + 2);
            if (d == 0) {
                pr[0] = mx;
                pr[1] = L;
            }
            pr[2 + d] = o;
        }
    }
}

// Merges attention_cached's splits of each (token, head), in split order: with M the
// largest split max, out = Σ o_s e^(m_s−M) / Σ l_s e^(m_s−M) over the splits that hold
// keys of the row, ceil(nKeys / span). A row of one split comes out as the unsplit
// kernel writes it (e^0 = 1 and 0 + x = x in float). grid: (tokens, heads); block:
// any multiple of 32.
extern "C" __global__ void attention_combine(const float* __restrict__ partial, const int* __restrict__ pos,
                                             __nv_bfloat16* __restrict__ out, int heads, int headDim, int splits, int span) {
    int t = blockIdx.x, h = blockIdx.y;
    int n = min(splits, (pos[t] + span) / span);
    const float* pr = partial + ((size_t)t * heads + h) * splits * (headDim + 2);
    float mx = -CUDART_INF_F;
    for (int sp = 0; sp < n; sp++) mx = fmaxf(mx, pr[sp * (headDim + 2)]);
    for (int d = threadIdx.x; d < headDim; d += blockDim.x) {
        float L = 0.f, o = 0.f;
        for (int sp = 0; sp < n; sp++) {
            const float* ps = pr + sp * (headDim + 2);
            float f = expf(ps[0] - mx);
            L += ps[1] * f;
            o += ps[2 + d] * f;
        }
        out[((size_t)t * heads + h) * headDim + d] = __float2bfloat16(o / L);
    }
}
