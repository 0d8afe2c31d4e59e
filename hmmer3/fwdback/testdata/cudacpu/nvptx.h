// Declarations of the CUDA built-ins fwd.cu uses, in terms of clang's
// NVPTX builtins, so that clang can compile the kernel for a GPU without
// a CUDA toolkit (cudacpu_test.go: a syntax and type check of the device
// code; NVRTC on the GPU host remains the compiler that counts).
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define DEV static __device__ __forceinline__
struct __align__(8) float2 { float x, y; };
struct __align__(16) float4 { float x, y, z, w; };
DEV float2 make_float2(float x, float y) { float2 r; r.x = x; r.y = y; return r; }
DEV float __fmul_rn(float a, float b) { return __nvvm_mul_rn_ftz_f(a, b); }
DEV float __fadd_rn(float a, float b) { return __nvvm_add_rn_ftz_f(a, b); }
DEV float __fdiv_rn(float a, float b) { return __nvvm_div_rn_ftz_f(a, b); }
DEV unsigned __float_as_uint(float x) { return (unsigned)__nvvm_bitcast_f2i(x); }
DEV float __uint_as_float(unsigned x) { return __nvvm_bitcast_i2f((int)x); }
// The shuffles' last operand packs the segment mask (32 - width) << 8 and
// the clamp (31 for idx/bfly/down, 0 for up).
DEV float __shfl_up_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_f32(m, v, d, (32 - w) << 8); }
DEV float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_down_f32(m, v, d, ((32 - w) << 8) | 0x1f); }
DEV float __shfl_xor_sync(unsigned m, float v, int l, int w = 32) { return __nvvm_shfl_sync_bfly_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV int __shfl_xor_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_bfly_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV int __shfl_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
DEV int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
DEV unsigned atomicAdd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v); }
DEV int min(int a, int b) { return a < b ? a : b; }
DEV int max(int a, int b) { return a > b ? a : b; }
#define __syncthreads() __nvvm_bar_sync(0)
