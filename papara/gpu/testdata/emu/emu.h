// Host C++ stand-ins for the CUDA features papara.cu uses, so that the
// tests compile the kernel source itself with the machine's C++ compiler
// and run it on the CPU (there is no GPU here or in CI). The threads of a
// group run as coroutines that meet at every warp shuffle; __ldg checks
// that each global read lies inside a kernel argument; the DPX functions
// follow the CUDA math API (16-bit halves, wrapping additions, signed
// comparisons) and pp_perm the PTX prmt instruction.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define PP_EMULATED 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)

struct emu_dim3 {
	unsigned x, y, z;
};
extern emu_dim3 threadIdx, blockIdx;

struct int4 {
	int x, y, z, w;
};
struct uint4 {
	unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }

void emu_check(const void* p, size_t n);
template <class T>
inline T __ldg(const T* p) {
	emu_check(p, sizeof(T));
	T v;
	memcpy(&v, p, sizeof v);
	return v;
}

// op 0: shuffle up by delta; op 1: butterfly (xor) with delta.
uint32_t emu_shuffle(unsigned mask, uint32_t v, int op, unsigned delta, int width);
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width) {
	static_assert(sizeof(T) == 4, "32-bit shuffles only");
	uint32_t b;
	memcpy(&b, &v, 4);
	b = emu_shuffle(mask, b, 0, delta, width);
	memcpy(&v, &b, 4);
	return v;
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int laneMask, int width) {
	static_assert(sizeof(T) == 4, "32-bit shuffles only");
	uint32_t b;
	memcpy(&b, &v, 4);
	b = emu_shuffle(mask, b, 1, (unsigned)laneMask, width);
	memcpy(&v, &b, 4);
	return v;
}

inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
	unsigned long long old = *p;
	if (v > old) *p = v;
	return old;
}

// Per 16-bit half: f(a, b, c) on signed halves, the result wrapped to 16 bits.
template <class F>
inline uint32_t emu_halves(uint32_t a, uint32_t b, uint32_t c, F f) {
	uint32_t out = 0;
	for (int h = 0; h < 2; h++) {
		int x = (int16_t)(uint16_t)(a >> (16 * h)), y = (int16_t)(uint16_t)(b >> (16 * h)),
		    z = (int16_t)(uint16_t)(c >> (16 * h));
		out |= (uint32_t)(uint16_t)f(x, y, z) << (16 * h);
	}
	return out;
}
inline int16_t emu_wrap(int v) { return (int16_t)(uint16_t)(unsigned)v; }
inline unsigned __vadd2(unsigned a, unsigned b) {
	return emu_halves(a, b, 0, [](int x, int y, int) { return (int)emu_wrap(x + y); });
}
inline unsigned __viaddmax_s16x2(unsigned a, unsigned b, unsigned c) {
	return emu_halves(a, b, c, [](int x, int y, int z) { return max((int)emu_wrap(x + y), z); });
}
inline unsigned __viaddmax_s16x2_relu(unsigned a, unsigned b, unsigned c) {
	return emu_halves(a, b, c, [](int x, int y, int z) { return max(max((int)emu_wrap(x + y), z), 0); });
}
inline unsigned __vimax_s16x2_relu(unsigned a, unsigned b) {
	return emu_halves(a, b, 0, [](int x, int y, int) { return max(max(x, y), 0); });
}

// PTX prmt.b32, generic mode: bytes of {b, a}; a selector nibble's bit 3
// replicates the selected byte's sign.
inline uint32_t pp_perm(uint32_t a, uint32_t b, uint32_t sel) {
	uint64_t src = (uint64_t)b << 32 | a;
	uint32_t d = 0;
	for (int i = 0; i < 4; i++) {
		unsigned nib = (sel >> (4 * i)) & 15;
		uint32_t byte = (uint32_t)(src >> (8 * (nib & 7))) & 0xff;
		if (nib & 8) byte = (byte & 0x80) ? 0xff : 0;
		d |= byte << (8 * i);
	}
	return d;
}
