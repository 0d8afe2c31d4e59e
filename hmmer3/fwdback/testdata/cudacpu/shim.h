// fwd.cu's additions to the CPU stand-in for CUDA (internal/cudacpu/emu.h):
// float vector types and the IEEE intrinsics.
//
// Float arithmetic is the host's SSE single precision with flush-to-zero
// on and denormals-are-zero off (the driver sets MXCSR), i.e. hmmsearch's
// mode; compile with -ffp-contract=off so nothing is fused.
#pragma once

#include <xmmintrin.h>

#include "emu.h"

struct __attribute__((aligned(8))) float2 {
    float x, y;
};
struct float3 {
    float x, y, z;
};
struct __attribute__((aligned(16))) float4 {
    float x, y, z, w;
};
static inline float2 make_float2(float x, float y) { return float2{x, y}; }

static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}

// __syncwarp: every lane of the warp meets here (memory is one on the CPU).
static inline void __syncwarp(unsigned mask = 0xffffffffu, int site = __builtin_LINE())
{
    (void)emu::exchange(mask, 0, 0, site);
}
