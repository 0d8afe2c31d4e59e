// Host C++ stand-ins for the CUDA device features pairhmm.cu uses, so that
// the kernel source itself can be compiled by the machine's C++ compiler
// and run on the CPU in the tests (no GPU here or in CI). Each group of
// threads runs as coroutines (ucontext) that switch at every warp shuffle;
// __ldg checks that every global read lies inside a kernel argument.
// Arithmetic is plain IEEE float/double (x86-64 SSE: no fused
// multiply-add but the explicit __fma*_rn), which is what the __*_rn
// intrinsics specify.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static

struct emu_uint3 {
	unsigned x, y, z;
};
extern emu_uint3 threadIdx, blockIdx;

inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
// libm's fma rounds once (an FMA instruction or an exact emulation); the
// float one's result is flushed by MXCSR's FTZ bit, as --ftz=true does.
inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }

void emu_check(const void* p, size_t n);
template <class T>
inline T __ldg(const T* p) {
	emu_check(p, sizeof(T));
	return *p;
}

uint64_t emu_shfl_up(unsigned mask, uint64_t v, unsigned delta, int width);
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width) {
	uint64_t b = 0;
	memcpy(&b, &v, sizeof v);
	b = emu_shfl_up(mask, b, delta, width);
	memcpy(&v, &b, sizeof v);
	return v;
}
inline void __syncwarp(unsigned) {}
