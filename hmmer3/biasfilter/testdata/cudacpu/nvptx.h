// Declarations of the CUDA built-ins bias.cu uses, in terms of clang's
// NVPTX builtins, so that clang can compile the kernel for a GPU without a
// CUDA toolkit (cudacpu_test.go: a syntax, type and contraction check of
// the device code; NVRTC on the GPU host remains the compiler that counts).
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))
#define __align__(n) __attribute__((aligned(n)))
#define DEV static __device__ __forceinline__
struct __align__(8) float2 { float x, y; };
DEV long long __double_as_longlong(double x) { return __nvvm_bitcast_d2ll(x); }
DEV double __longlong_as_double(long long u) { return __nvvm_bitcast_ll2d(u); }
DEV unsigned __float_as_uint(float x) { return (unsigned)__nvvm_bitcast_f2i(x); }
DEV float __uint_as_float(unsigned x) { return __nvvm_bitcast_i2f((int)x); }
DEV double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
DEV int __shfl_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV unsigned atomicAdd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v); }
#define __syncthreads() __nvvm_bar_sync(0)
