// vit.cu's and vit16.cu's additions to the CPU stand-in for CUDA
// (internal/cudacpu/emu.h, with dpx.h's DPX intrinsics and __byte_perm):
// uint2, uint4 and __reduce_max_sync (the warp's max).
#pragma once

#include "emu.h"
#include "dpx.h"

struct __attribute__((aligned(8))) uint2 {
    unsigned x, y;
};
struct __attribute__((aligned(16))) uint4 {
    unsigned x, y, z, w;
};


static inline int reduce_max_at(unsigned mask, int v, int site)
{
    if (mask != 0xffffffffu) emu::fail("reduction at line %d with a partial mask", site);
    emu::Group& g = emu::warps[emu::cur->warp];
    g.slot[emu::lane()] = (uint64_t)(unsigned)v;
    emu::wait(g, 32, site);
    int m = (int)(unsigned)g.slot[0];
    for (int i = 1; i < 32; i++) m = std::max(m, (int)(unsigned)g.slot[i]);
    emu::wait(g, 32, site);
    return m;
}
#define __reduce_max_sync(mask, v) reduce_max_at((mask), (v), __LINE__)
