// Bias, rotary embedding and KV-cache write for one fused q/k/v projection.
#include "common.cuh"

// qkv is [tokens][(heads + 2*kvHeads) * headDim] (q heads, k heads, v heads) in float.
// rope is the host-computed table [maxSeq][headDim/2] of (cos, sin), float64-accurate
// angles, so long positions do not lose phase to float32 products.
// Rotation is HF's rotate_half layout: pairs (j, j + headDim/2).
// q gets the rotated query (float, [tokens][heads][headDim]); k/v go to the cache
// [slots][kvHeads][maxSeq][headDim] at the token's position. grid: tokens.
extern "C" __global__ void qkv_rope_cache(const float* __restrict__ qkv, const float* __restrict__ bias,
                                          const float2* __restrict__ rope, const int* __restrict__ pos,
                                          const int* __restrict__ slot, float* __restrict__ q,
                                          __nv_bfloat16* __restrict__ kc, __nv_bfloat16* __restrict__ vc,
                                          int heads, int kvHeads, int headDim, int maxSeq) {
    int t = blockIdx.x, p = pos[t], s = slot[t], half = headDim / 2;
    const float* row = qkv + (size_t)t * (heads + 2 * kvHeads) * headDim;
    const float2* cs = rope + (size_t)p * half;
    int pairs = (heads + kvHeads) * half;
    for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
        int h = i / half, j = i - h * half, base = h * headDim;
        float a = row[base + j], b = row[base + j + half];
        if (bias) {
            a += bias[base + j];
            b += bias[base + j + half];
        }
        float c = cs[j].x, sn = cs[j].y;
        float ra = a * c - b * sn, rb = b * c + a * sn;
        if (h < heads) {
            float* qo = q + (size_t)t * heads * headDim + base;
            qo[j] = ra;
            qo[j + half] = rb;
        } else {
            __nv_bfloat16* ko = kc + (((size_t)s * kvHeads + (h - heads)) * maxSeq + p) * headDim;
            ko[j] = __float2bfloat16(ra);
            ko[j + half] = __float2bfloat16(rb);
        }
    }
    int vbase = (heads + kvHeads) * headDim;
    for (int i = threadIdx.x; i < kvHeads * headDim; i += blockDim.x) {
        int g = i / headDim, d = i - g * headDim;
        float v = row[vbase + i] + (bias ? bias[vbase + i] : 0.f);
        vc[(((size_t)s * kvHeads + g) * maxSeq + p) * headDim + d] = __float2bfloat16(v);
    }
}
