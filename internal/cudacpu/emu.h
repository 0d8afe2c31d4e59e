// A CPU stand-in for the CUDA features hmmgo's kernels use, so that a
// kernel source itself can be run and checked on a machine without a GPU
// (the cudacpu_test.go files; each package's testdata/cudacpu/shim.h adds
// the types and intrinsics of its kernel). Every GPU thread is a coroutine
// with its own stack (x86-64 only: switching saves the callee-saved
// registers and swaps the stack pointer, without ucontext's signal-mask
// system calls); all of them run on one OS thread and switch only inside
// collectives (shuffles, votes, barriers), so a shuffle sees the other
// lanes' values exactly as a warp's lanes would. A collective checks that
// all 32 lanes of the warp take part with a full mask at the same source
// line, and a round in which no thread moves is reported as a deadlock.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

struct uint3 {
    unsigned x, y, z;
};

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

// emu_switch saves the callee-saved registers on the current stack, stores
// the stack pointer in *from and resumes the coroutine whose stack pointer
// is to (System V AMD64: rdi = from, rsi = to).
extern "C" void emu_switch(void** from, void* to);
asm(R"(
    .text
    .globl emu_switch
    .type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size emu_switch, .-emu_switch
)");

namespace emu {

struct Thread {
    void* sp;
    uint3 tid, bid;
    int warp;  // index of its warp in the grid
    int block;
    bool done;
    std::vector<char> stack;
};

// A set of threads that meet in collectives: a warp or a block.
struct Group {
    int arrived = 0;
    unsigned gen = 0;
    int site = -1;
    uint64_t slot[1024];
};

inline Thread* cur;
inline void* sched;
inline bool progress;
inline int blockThreads;
inline std::vector<Group> warps, blocks;
inline std::vector<std::vector<unsigned char>> shared;
inline std::function<void()> body;

[[noreturn]] inline void fail(const char* msg, int a = 0, int b = 0)
{
    std::fprintf(stderr, "cudacpu: ");
    std::fprintf(stderr, msg, a, b);
    std::fprintf(stderr, "\n");
    std::exit(3);
}

inline void yield() { emu_switch(&cur->sp, sched); }

// wait returns when all count members of g have arrived at site.
inline void wait(Group& g, int count, int site)
{
    if (g.arrived == 0)
        g.site = site;
    else if (g.site != site)
        fail("threads of one group at different collectives (lines %d and %d)", g.site, site);
    progress = true;
    unsigned gen = g.gen;
    if (++g.arrived == count) {
        g.arrived = 0;
        g.gen++;
        return;
    }
    while (g.gen == gen) yield();
}

inline int lane() { return (int)(cur->tid.x & 31); }

// exchange publishes v and returns lane src's value.
template <class T>
T exchange(unsigned mask, T v, int src, int site)
{
    static_assert(sizeof(T) <= 8, "shuffle of a large type");
    if (mask != 0xffffffffu) fail("collective at line %d with mask %d: the kernel uses full masks", site, (int)mask);
    Group& g = warps[cur->warp];
    uint64_t w = 0;
    std::memcpy(&w, &v, sizeof v);
    g.slot[lane()] = w;
    wait(g, 32, site);
    T r;
    std::memcpy(&r, &g.slot[src], sizeof r);
    wait(g, 32, site);
    return r;
}

// entry starts a coroutine; it never returns, it switches away for good.
inline void entry()
{
    body();
    cur->done = true;
    progress = true;
    emu_switch(&cur->sp, sched);
    fail("finished thread resumed");
}

inline unsigned char* sharedBase() { return shared[cur->block].data(); }

// launch runs body on grid x block threads, all interleaved.
inline void launch(int grid, int block, size_t sharedBytes, std::function<void()> fn)
{
    if (block % 32 != 0 || block > 1024) fail("block of %d threads", block);
    body = std::move(fn);
    blockThreads = block;
    warps.assign((size_t)grid * block / 32, Group());
    blocks.assign(grid, Group());
    shared.assign(grid, std::vector<unsigned char>(sharedBytes + 16));
    std::vector<Thread> threads((size_t)grid * block);
    for (int b = 0; b < grid; b++) {
        for (int t = 0; t < block; t++) {
            Thread& th = threads[(size_t)b * block + t];
            th.tid = uint3{(unsigned)t, 0, 0};
            th.bid = uint3{(unsigned)b, 0, 0};
            th.block = b;
            th.warp = (b * block + t) / 32;
            th.done = false;
            // A fresh stack as emu_switch leaves one: six zero registers,
            // then entry as the return address, at the alignment a call
            // gives (rsp = 8 mod 16 on entry).
            th.stack.assign(256 * 1024, 0);
            uintptr_t top = ((uintptr_t)(th.stack.data() + th.stack.size())) & ~(uintptr_t)15;
            void** sp = (void**)top - 2;
            sp[0] = (void*)entry;
            sp -= 6;
            th.sp = sp;
        }
    }
    for (int stalls = 0;;) {
        bool live = false;
        progress = false;
        for (Thread& th : threads) {
            if (th.done) continue;
            live = true;
            cur = &th;
            emu_switch(&sched, th.sp);
        }
        if (!live) return;
        stalls = progress ? 0 : stalls + 1;
        if (stalls > 2) fail("deadlock: every thread waits in a collective");
    }
}

}  // namespace emu

#define threadIdx (emu::cur->tid)
#define blockIdx (emu::cur->bid)
#define blockDim (uint3{(unsigned)emu::blockThreads, 1, 1})
#define SHARED_BASE (emu::sharedBase())

static inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

using std::max;
using std::min;

// Threads switch only in collectives, so a read-modify-write is atomic.
static inline unsigned atomicAdd(unsigned* p, unsigned v)
{
    unsigned old = *p;
    *p += v;
    return old;
}

static inline unsigned atomicMax(unsigned* p, unsigned v)
{
    unsigned old = *p;
    *p = std::max(old, v);
    return old;
}

template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = 32, int site = __builtin_LINE())
{
    int l = emu::lane();
    return emu::exchange(mask, v, (l & ~(width - 1)) + (src & (width - 1)), site);
}

template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32, int site = __builtin_LINE())
{
    int l = emu::lane();
    int src = (l & (width - 1)) < (int)delta ? l : l - (int)delta;
    return emu::exchange(mask, v, src, site);
}

template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32, int site = __builtin_LINE())
{
    int l = emu::lane();
    int src = (l & (width - 1)) + (int)delta >= width ? l : l + (int)delta;
    return emu::exchange(mask, v, src, site);
}

template <class T>
T __shfl_xor_sync(unsigned mask, T v, int laneMask, int width = 32, int site = __builtin_LINE())
{
    int l = emu::lane();
    int src = l ^ laneMask;
    if ((src & ~(width - 1)) != (l & ~(width - 1))) src = l;
    return emu::exchange(mask, v, src, site);
}

static inline int __any_sync(unsigned mask, int pred, int site = __builtin_LINE())
{
    if (mask != 0xffffffffu) emu::fail("vote at line %d with a partial mask", site);
    emu::Group& g = emu::warps[emu::cur->warp];
    g.slot[emu::lane()] = pred != 0;
    emu::wait(g, 32, site);
    int any = 0;
    for (int i = 0; i < 32; i++) any |= (int)g.slot[i];
    emu::wait(g, 32, site);
    return any;
}

static inline void syncthreads_at(int site)
{
    emu::wait(emu::blocks[emu::cur->block], emu::blockThreads, site);
}
#define __syncthreads() syncthreads_at(__LINE__)
