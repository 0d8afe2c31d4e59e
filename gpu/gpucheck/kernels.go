// Package gpucheck runs small end-to-end checks and measurements on a
// GPU: a vector add through NVRTC, the DPX instructions that the dynamic
// programming kernels rely on, and device memory bandwidth. `hmmgo
// gpuinfo --check/--bench` and the GPU smoke run (bench/gpu/smoke.sh) use
// them.
package gpucheck

// source holds the check kernels, compiled at run time by NVRTC.
const source = `
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

// One output row per DPX intrinsic; native instructions on sm_90 and
// later, emulated by the compiler before. HMMER's Viterbi recurrences are
// max(a + b, c) over 16-bit lanes, hence the s16x2 forms.
extern "C" __global__ void dpx_check(const unsigned *a, const unsigned *b, const unsigned *c,
                                     unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = __viaddmax_s16x2(x, y, z);
  out[1 * n + i] = __viaddmax_s16x2_relu(x, y, z);
  out[2 * n + i] = __vimax3_s16x2(x, y, z);
  out[3 * n + i] = (unsigned)__viaddmax_s32((int)x, (int)y, (int)z);
  out[4 * n + i] = (unsigned)__vimax3_s32((int)x, (int)y, (int)z);
  out[5 * n + i] = __viaddmin_s16x2(x, y, z);
}

// Device-to-device copy with 16-byte accesses, grid-stride.
extern "C" __global__ void copy_u4(uint4 *__restrict__ dst, const uint4 *__restrict__ src, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}
`

// dpxFunctions names the rows of dpx_check's output, in order.
var dpxFunctions = []string{"__viaddmax_s16x2", "__viaddmax_s16x2_relu", "__vimax3_s16x2",
	"__viaddmax_s32", "__vimax3_s32", "__viaddmin_s16x2"}

// dpxReference computes dpx_check's rows on the CPU. Additions wrap
// (they do not saturate) and comparisons are signed, as the CUDA math API
// documents for these intrinsics.
func dpxReference(x, y, z uint32) [6]uint32 {
	lanes := func(f func(a, b, c int16) int16) uint32 {
		lo := f(int16(x), int16(y), int16(z))
		hi := f(int16(x>>16), int16(y>>16), int16(z>>16))
		return uint32(uint16(hi))<<16 | uint32(uint16(lo))
	}
	sx, sy, sz := int32(x), int32(y), int32(z)
	return [6]uint32{
		lanes(func(a, b, c int16) int16 { return max(a+b, c) }),
		lanes(func(a, b, c int16) int16 { return max(a+b, c, 0) }),
		lanes(func(a, b, c int16) int16 { return max(a, b, c) }),
		uint32(max(sx+sy, sz)),
		uint32(max(sx, sy, sz)),
		lanes(func(a, b, c int16) int16 { return min(a+b, c) }),
	}
}
