// CPU stand-ins for CUDA's integer SIMD intrinsics that the kernels use:
// __byte_perm and the DPX instructions. DPX additions wrap to 32 (or
// 16) bits and compare signed, as the CUDA math API documents and
// gpu/gpucheck verifies on the device; relu forms also take the max
// with 0. Included by the kernels' shims after emu.h.
#pragma once

#include <algorithm>
#include <cstdint>

// Bytes of {y, x} (x the low word) picked by the selector's nibbles;
// the kernels' selectors never set a nibble's sign-replicate bit.
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    uint64_t src = (uint64_t)y << 32 | x;
    unsigned d = 0;
    for (int i = 0; i < 4; i++) {
        unsigned nib = (s >> (4 * i)) & 15;
        if (nib & 8) emu::fail("__byte_perm selector %d with the sign bit", (int)s);
        d |= (unsigned)((src >> (8 * nib)) & 0xff) << (8 * i);
    }
    return d;
}

static inline int wrap32(long long v) { return (int)(unsigned)(unsigned long long)v; }
static inline int __viaddmax_s32(int a, int b, int c) { return std::max(wrap32((long long)a + b), c); }
static inline int __viaddmin_s32(int a, int b, int c) { return std::min(wrap32((long long)a + b), c); }

// halves applies f to each signed 16-bit half of a, b, c.
template <class F>
static inline unsigned halves(unsigned a, unsigned b, unsigned c, F f)
{
    unsigned out = 0;
    for (int h = 0; h < 2; h++) {
        int x = (short)(a >> (16 * h)), y = (short)(b >> (16 * h)), z = (short)(c >> (16 * h));
        out |= (unsigned)(unsigned short)f(x, y, z) << (16 * h);
    }
    return out;
}
static inline int wrap16(int v) { return (short)(unsigned short)(unsigned)v; }
static inline unsigned __viaddmax_s16x2(unsigned a, unsigned b, unsigned c)
{
    return halves(a, b, c, [](int x, int y, int z) { return std::max(wrap16(x + y), z); });
}
static inline unsigned __viaddmin_s16x2(unsigned a, unsigned b, unsigned c)
{
    return halves(a, b, c, [](int x, int y, int z) { return std::min(wrap16(x + y), z); });
}
static inline unsigned __viaddmax_s16x2_relu(unsigned a, unsigned b, unsigned c)
{
    return halves(a, b, c, [](int x, int y, int z) { return std::max(std::max(wrap16(x + y), z), 0); });
}
static inline unsigned __vimax3_s16x2(unsigned a, unsigned b, unsigned c)
{
    return halves(a, b, c, [](int x, int y, int z) { return std::max(std::max(x, y), z); });
}
static inline unsigned __vimax_s16x2_relu(unsigned a, unsigned b)
{
    return halves(a, b, 0, [](int x, int y, int) { return std::max(std::max(x, y), 0); });
}
