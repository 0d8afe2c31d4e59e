// Test kernels for package cuda, compiled to PTX by gen.sh with clang (no
// CUDA toolkit needed), so the driver tests do not depend on NVRTC. The
// mock driver in gpu/internal/mockgpu implements the same kernels in C.

#define GLOBAL extern "C" __attribute__((global))
#define tid_x() __nvvm_read_ptx_sreg_tid_x()
#define ntid_x() __nvvm_read_ptx_sreg_ntid_x()
#define ctaid_x() __nvvm_read_ptx_sreg_ctaid_x()
#define nctaid_x() __nvvm_read_ptx_sreg_nctaid_x()
// clang builtins stand in for the CUDA headers' names.
#define __syncthreads() __nvvm_bar_sync(0)
#define __float_as_uint(x) ((unsigned)__nvvm_bitcast_f2i(x))
#define __double_as_longlong(x) __nvvm_bitcast_d2ll(x)

// c = a + b over n floats, grid-stride so any grid size is correct.
GLOBAL void vecadd(const float *a, const float *b, float *c, int n) {
  for (int i = ctaid_x() * ntid_x() + tid_x(); i < n; i += nctaid_x() * ntid_x())
    c[i] = a[i] + b[i];
}

// A module-scope variable for Module.Global.
extern "C" __attribute__((device)) int counter = 7;

extern __attribute__((shared)) unsigned dynamic_smem[];

// Fills all `words` words of dynamic shared memory, then writes them out in
// reverse order, so the result is right only if every word was really
// there: out[block*words + i] = (words-1-i) ^ (block << 20).
GLOBAL void smem_reverse(unsigned *out, int words) {
  unsigned block = ctaid_x();
  for (int i = tid_x(); i < words; i += ntid_x())
    dynamic_smem[i] = (unsigned)i ^ (block << 20);
  __syncthreads();
  for (int i = tid_x(); i < words; i += ntid_x())
    out[(long long)block * words + i] = dynamic_smem[words - 1 - i];
}

// Echoes one argument of each scalar kind, as 64-bit words, to check the
// argument builder's layout: int, unsigned, long long, float, double,
// unsigned long long, and a pointer.
GLOBAL void echo_args(unsigned long long *out, int a, unsigned b, long long c,
                      float d, double e, unsigned long long f, const int *g) {
  if (ctaid_x() != 0 || tid_x() != 0)
    return;
  out[0] = (unsigned long long)(long long)a;
  out[1] = b;
  out[2] = (unsigned long long)c;
  out[3] = (unsigned long long)__float_as_uint(d);
  out[4] = (unsigned long long)__double_as_longlong(e);
  out[5] = f;
  out[6] = (unsigned long long)g;
}

// Spins for about `cycles` clock ticks per block, then adds 1 to x[i]:
// work long enough for two streams to overlap visibly.
GLOBAL void slow_increment(float *x, int n, long long cycles) {
  long long start = __nvvm_read_ptx_sreg_clock64();
  while (__nvvm_read_ptx_sreg_clock64() - start < cycles) {
  }
  for (int i = ctaid_x() * ntid_x() + tid_x(); i < n; i += nctaid_x() * ntid_x())
    x[i] += 1.0f;
}
