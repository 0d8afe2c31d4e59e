// msv.cu's additions to the CPU stand-in for CUDA (internal/cudacpu/emu.h,
// with dpx.h's DPX intrinsics and __byte_perm): blockDim and atomicMax.
#pragma once

#include "emu.h"
#include "dpx.h"

#define blockDim (uint3{(unsigned)emu::blockThreads, 1, 1})

// Threads switch only in collectives, so a read-modify-write is atomic.
static inline unsigned atomicMax(unsigned* p, unsigned v)
{
    unsigned old = *p;
    *p = std::max(old, v);
    return old;
}
