// Declarations of the CUDA built-ins viterbi.cu uses, in terms of clang's
// NVPTX builtins, so that clang can compile the kernel for a GPU without
// a CUDA toolkit (cudacpu_test.go: a syntax and type check of the device
// code; NVRTC on the GPU host remains the compiler that counts). Adapted
// from hmmer3/fwdback's.
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define DEV static __device__ __forceinline__
struct __align__(8) int2 { int x, y; };
struct __align__(16) int4 { int x, y, z, w; };
// The shuffles' last operand packs the segment mask (32 - width) << 8 and
// the clamp (31 for idx/bfly/down, 0 for up).
DEV int __shfl_up_sync(unsigned m, int v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_i32(m, v, d, (32 - w) << 8); }
DEV int __shfl_xor_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_bfly_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV int __shfl_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
DEV int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
DEV unsigned atomicAdd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v); }
DEV int min(int a, int b) { return a < b ? a : b; }
DEV int max(int a, int b) { return a > b ? a : b; }
// NVRTC has the DPX intrinsic; clang 14 does not: the same function.
DEV int __viaddmax_s32(int a, int b, int c) { int s = (int)((unsigned)a + (unsigned)b); return s > c ? s : c; }
#define __syncthreads() __nvvm_bar_sync(0)
DEV void __syncwarp() { __nvvm_bar_warp_sync(0xffffffffu); }
DEV void __threadfence_block() { __nvvm_membar_cta(); }
DEV void __nanosleep(unsigned ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
