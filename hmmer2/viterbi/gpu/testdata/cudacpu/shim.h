// viterbi.cu's additions to the CPU stand-in for CUDA
// (internal/cudacpu/emu.h, with dpx.h's wrapping __viaddmax_s32): int
// vector types and __syncthreads_or.
#pragma once

#include "emu.h"
#include "dpx.h"

// viterbi.cu may give __launch_bounds__ a minimum of blocks per
// multiprocessor too (MINBLOCKS); on the CPU both forms mean nothing.
#undef __launch_bounds__
#define __launch_bounds__(...)

// Cache hints of the emission loads (EMIS_HINT): plain loads on the CPU.
template <class V> static inline V __ldcg(const V* p) { return *p; }
template <class V> static inline V __ldcs(const V* p) { return *p; }
// The strips' scratch records (STRIP): plain accesses on the CPU.
template <class V> static inline void __stcg(V* p, V v) { *p = v; }

struct __attribute__((aligned(8))) int2 {
    int x, y;
};
struct __attribute__((aligned(16))) int4 {
    int x, y, z, w;
};

// The strips' asynchronous copies (STRIP_RECSH, STRIP_EA): plain copies on
// the CPU, where threads switch only at collectives and waits.
#define STRIP_ASYNC_PLAIN 1
static inline void copyAsync16(int4* d, const int4* s) { *d = *s; }
static inline void commitAsync() {}
static inline void waitAsync1() {}
static inline void waitAsyncAll() {}
static inline void copyAsync4(unsigned int* d, const unsigned int* s) { *d = *s; }
// The strips' predicated record store (STRIP_PS).
static inline void storeIf16(bool p, int4* d, int4 v)
{
    if (p) *d = v;
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

// The wavefront's waits (WAVE): a waiting thread lets the others run; a
// round in which every thread waits is still reported as a deadlock.
#define WAVE_SPIN() emu::yield()
static inline void syncwarp_at(int site) { emu::wait(emu::warps[emu::cur->warp], 32, site); }
#define __syncwarp() syncwarp_at(__LINE__)
// Threads switch only at collectives and waits: shared memory is ordered.
static inline void __threadfence_block() {}

// Named barriers (WBAR): per block, ids 0..15; bar.arrive counts itself
// and goes on, bar.sync counts itself and waits for the count.
static inline void named_bar(int id, int n, bool wait)
{
    static std::vector<emu::Group> bars;
    if (bars.size() < emu::blocks.size() * 16) bars.resize(emu::blocks.size() * 16);
    emu::Group& g = bars[(size_t)emu::cur->block * 16 + id];
    emu::progress = true;
    unsigned gen = g.gen;
    if (++g.arrived == n) {
        g.arrived = 0;
        g.gen++;
        return;
    }
    while (wait && g.gen == gen) emu::yield();
}
#define WAVE_BAR_SYNC(id, n) named_bar((id), (n), true)
#define WAVE_BAR_ARRIVE(id, n) named_bar((id), (n), false)
