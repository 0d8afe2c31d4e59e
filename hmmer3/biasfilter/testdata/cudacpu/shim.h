// bias.cu's additions to the CPU stand-in for CUDA (internal/cudacpu/emu.h):
// float2, the bit casts and fma. Host double and float arithmetic
// is SSE2's IEEE arithmetic with subnormals kept (the driver leaves MXCSR
// alone, as Go does); compile with -ffp-contract=off so nothing is fused
// except the explicit fma() calls, which std::fma rounds once.
#pragma once

#include <cmath>

#include "emu.h"

struct __attribute__((aligned(8))) float2 {
    float x, y;
};


static inline long long __double_as_longlong(double x)
{
    long long u;
    std::memcpy(&u, &x, 8);
    return u;
}
static inline double __longlong_as_double(long long u)
{
    double x;
    std::memcpy(&x, &u, 8);
    return x;
}
static inline unsigned __float_as_uint(float x)
{
    unsigned u;
    std::memcpy(&u, &x, 4);
    return u;
}
using std::fma;
