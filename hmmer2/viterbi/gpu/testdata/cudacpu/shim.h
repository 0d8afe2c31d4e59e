// viterbi.cu's additions to the CPU stand-in for CUDA
// (internal/cudacpu/emu.h): int vector types, __viaddmax_s32 (wrapping,
// as gpucheck verifies on the device) and __syncthreads_or.
#pragma once

#include "emu.h"

struct __attribute__((aligned(8))) int2 {
    int x, y;
};
struct __attribute__((aligned(16))) int4 {
    int x, y, z, w;
};

static inline int __viaddmax_s32(int a, int b, int c)
{
    int s = (int)((unsigned)a + (unsigned)b);
    return s > c ? s : c;
}

static inline int syncthreads_or_at(int pred, int site)
{
    emu::Group& g = emu::blocks[emu::cur->block];
    g.slot[emu::cur->tid.x] = pred != 0;
    emu::wait(g, emu::blockThreads, site);
    int any = 0;
    for (int i = 0; i < emu::blockThreads; i++) any |= (int)g.slot[i];
    emu::wait(g, emu::blockThreads, site);
    return any;
}
#define __syncthreads_or(p) syncthreads_or_at((p), __LINE__)
