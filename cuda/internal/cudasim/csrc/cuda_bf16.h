// Stands in for CUDA's cuda_bf16.h in the host build of the kernels (cudasim.h): the
// bf16 storage types and the conversions the kernels use, with the hardware's
// round-to-nearest-even (cvt.rn.bf16.f32) and NaN kept NaN.
#pragma once
#include "cudasim.h"

struct __attribute__((aligned(2))) __nv_bfloat16 { unsigned short __x; };
struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };

static inline float __bfloat162float(__nv_bfloat16 h) {
    unsigned u = (unsigned)h.__x << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline __nv_bfloat16 __float2bfloat16(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    __nv_bfloat16 h;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        h.__x = (unsigned short)((u >> 16) | 0x40); // quiet NaN, sign kept
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    h.__x = (unsigned short)(u >> 16);
    return h;
}

static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }

static inline float2 __bfloat1622float2(__nv_bfloat162 v) {
    float2 r;
    r.x = __bfloat162float(v.x);
    r.y = __bfloat162float(v.y);
    return r;
}

static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
    __nv_bfloat162 r;
    r.x = __float2bfloat16(a);
    r.y = __float2bfloat16(b);
    return r;
}
