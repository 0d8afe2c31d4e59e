/*
 * A stand-in for libcuda.so.1, written for hmmgo's tests: it lets the Go
 * bindings run end to end on machines without a GPU. "Device memory" is
 * host memory, streams run work at once, and kernels are C functions
 * looked up by name (the PTX handed to cuModuleLoadDataEx is not read).
 *
 * It checks what a real driver would refuse and the bindings must get
 * right: a current context on the calling thread (per-thread, as in the
 * driver), launches in the function's own context, >48 KiB of dynamic
 * shared memory only after cuFuncSetAttribute, block sizes, and JIT log
 * options.
 *
 * Two devices: 0 is "sm_90" with 227 KiB opt-in shared memory, 1 is "sm_80".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NO_DEVICE = 100, INVALID_DEVICE = 101,
  INVALID_CONTEXT = 201, INVALID_PTX = 218, INVALID_HANDLE = 400, NOT_FOUND = 500,
  NOT_READY = 600, ILLEGAL_ADDRESS = 700
};

#define NDEV 2
struct ctx { int dev; int magic; };
struct module { struct ctx *ctx; int magic; int global_counter; };
struct func { struct ctx *ctx; const char *name; int max_dyn_shared; int magic; };
struct stream { struct ctx *ctx; int magic; };
struct event { struct ctx *ctx; double t; int recorded; int timing; int magic; };

static int initialised;
static struct ctx contexts[NDEV];
static __thread struct ctx *current;

static const char *names[NDEV] = {"Mock GPU sm_90", "Mock GPU sm_80"};
static const int cc[NDEV][2] = {{9, 0}, {8, 0}};

#define NEED_INIT() do { if (!initialised) return NOT_INITIALIZED; } while (0)
#define NEED_CTX() do { NEED_INIT(); if (!current) return INVALID_CONTEXT; } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

CUresult cuInit(unsigned flags) {
  if (flags != 0) return INVALID_VALUE;
  if (getenv("MOCKCUDA_NO_DEVICE")) return NO_DEVICE;
  for (int i = 0; i < NDEV; i++) { contexts[i].dev = i; contexts[i].magic = 0xC7; }
  initialised = 1;
  return OK;
}

CUresult cuDriverGetVersion(int *v) {
  const char *e = getenv("MOCKCUDA_VERSION");
  *v = e ? atoi(e) : 13000;
  return OK;
}

static const char *err_name(CUresult r) {
  switch (r) {
  case OK: return "CUDA_SUCCESS";
  case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
  case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
  case INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
  case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
  case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
  case NOT_READY: return "CUDA_ERROR_NOT_READY";
  case ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  }
  return NULL;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = err_name(r);
  return *s ? OK : INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case INVALID_VALUE: *s = "invalid argument"; break;
  case INVALID_CONTEXT: *s = "invalid device context"; break;
  case INVALID_PTX: *s = "a PTX JIT compilation failed"; break;
  case NOT_FOUND: *s = "named symbol not found"; break;
  case ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; break;
  default: *s = err_name(r); return *s ? OK : INVALID_VALUE;
  }
  return OK;
}

CUresult cuDeviceGetCount(int *n) { NEED_INIT(); *n = NDEV; return OK; }

CUresult cuDeviceGet(int *d, int ordinal) {
  NEED_INIT();
  if (ordinal < 0 || ordinal >= NDEV) return INVALID_DEVICE;
  *d = ordinal;
  return OK;
}

CUresult cuDeviceGetName(char *buf, int len, int d) {
  NEED_INIT();
  if (d < 0 || d >= NDEV) return INVALID_DEVICE;
  snprintf(buf, len, "%s", names[d]);
  return OK;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int d) {
  NEED_INIT();
  if (d < 0 || d >= NDEV) return INVALID_DEVICE;
  *bytes = (size_t)(80 - 40 * d) << 30;
  return OK;
}

CUresult cuDeviceGetPCIBusId(char *buf, int len, int d) {
  NEED_INIT();
  snprintf(buf, len, "0000:%02x:00.0", 0x10 + d);
  return OK;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  NEED_INIT();
  if (d < 0 || d >= NDEV) return INVALID_DEVICE;
  switch (attr) {
  case 1: *v = 1024; break;                    /* max threads per block */
  case 8: *v = 48 << 10; break;                /* shared per block */
  case 10: *v = 32; break;                     /* warp size */
  case 12: *v = 65536; break;                  /* registers per block */
  case 13: return INVALID_VALUE;               /* clock rate: "deprecated" */
  case 16: *v = d == 0 ? 132 : 108; break;     /* SMs */
  case 36: *v = 2619000; break;                /* memory clock kHz */
  case 37: *v = 5120; break;                   /* bus width */
  case 38: *v = 50 << 20; break;               /* L2 */
  case 39: *v = 2048; break;
  case 40: *v = 3; break;
  case 75: *v = cc[d][0]; break;
  case 76: *v = cc[d][1]; break;
  case 81: *v = 228 << 10; break;
  case 82: *v = 65536; break;
  case 97: *v = d == 0 ? 227 << 10 : 163 << 10; break;
  default: return INVALID_VALUE;
  }
  return OK;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(int d, unsigned flags) {
  NEED_INIT();
  if (d < 0 || d >= NDEV) return INVALID_DEVICE;
  return OK;
}

CUresult cuDevicePrimaryCtxRetain(struct ctx **c, int d) {
  NEED_INIT();
  if (d < 0 || d >= NDEV) return INVALID_DEVICE;
  *c = &contexts[d];
  return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(int d) { NEED_INIT(); return OK; }

CUresult cuCtxSetCurrent(struct ctx *c) {
  NEED_INIT();
  if (c && c->magic != 0xC7) return INVALID_CONTEXT;
  current = c;
  return OK;
}

CUresult cuCtxSynchronize(void) { NEED_CTX(); return OK; }

CUresult cuMemGetInfo_v2(size_t *free_, size_t *total) {
  NEED_CTX();
  cuDeviceTotalMem_v2(total, current->dev);
  *free_ = *total - (1u << 30);
  return OK;
}

/* Device memory: host memory with a header recording the owning device. */
struct alloc { int dev; int magic; size_t size; };

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
  NEED_CTX();
  if (size == 0) return INVALID_VALUE;
  struct alloc *a = malloc(sizeof(struct alloc) + 64 + size);
  if (!a) return 2;
  a->dev = current->dev;
  a->magic = 0xA110C;
  a->size = size;
  *p = (CUdeviceptr)((char *)a + sizeof(struct alloc) + 64);
  return OK;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  NEED_CTX();
  struct alloc *a = (struct alloc *)((char *)p - 64 - sizeof(struct alloc));
  if (a->magic != 0xA110C) return INVALID_VALUE;
  if (a->dev != current->dev) return INVALID_CONTEXT;
  a->magic = 0;
  free(a);
  return OK;
}

/* Stream-ordered allocation: the mock's streams run everything at once. */
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t size, void *stream) {
  (void)stream;
  return cuMemAlloc_v2(p, size);
}

CUresult cuMemFreeAsync(CUdeviceptr p, void *stream) {
  (void)stream;
  return cuMemFree_v2(p);
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { NEED_CTX(); memset((void *)p, v, n); return OK; }

CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n) {
  NEED_CTX();
  for (size_t i = 0; i < n; i++) ((unsigned *)p)[i] = v;
  return OK;
}

static int stream_ok(struct stream *s) { return s == NULL || (s->magic == 0x57 && s->ctx == current); }

CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, struct stream *s) {
  NEED_CTX();
  if (!stream_ok(s)) return INVALID_HANDLE;
  return cuMemsetD8_v2(p, v, n);
}

CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, struct stream *s) {
  NEED_CTX();
  if (!stream_ok(s)) return INVALID_HANDLE;
  return cuMemsetD32_v2(p, v, n);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { NEED_CTX(); memcpy((void *)d, h, n); return OK; }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { NEED_CTX(); memcpy(h, (void *)d, n); return OK; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { NEED_CTX(); memmove((void *)d, (void *)s, n); return OK; }

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, struct stream *s) {
  NEED_CTX();
  if (!stream_ok(s)) return INVALID_HANDLE;
  return cuMemcpyHtoD_v2(d, h, n);
}

CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, struct stream *s) {
  NEED_CTX();
  if (!stream_ok(s)) return INVALID_HANDLE;
  return cuMemcpyDtoH_v2(h, d, n);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n, struct stream *s) {
  NEED_CTX();
  if (!stream_ok(s)) return INVALID_HANDLE;
  return cuMemcpyDtoD_v2(d, src, n);
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
  NEED_CTX();
  if (flags & ~7u) return INVALID_VALUE;
  return posix_memalign(p, 4096, n) ? 2 : OK;
}

CUresult cuMemFreeHost(void *p) { NEED_CTX(); free(p); return OK; }

CUresult cuStreamCreate(struct stream **s, unsigned flags) {
  NEED_CTX();
  if (flags > 1) return INVALID_VALUE;
  *s = calloc(1, sizeof **s);
  (*s)->ctx = current;
  (*s)->magic = 0x57;
  return OK;
}

CUresult cuStreamDestroy_v2(struct stream *s) {
  NEED_CTX();
  if (!s || s->magic != 0x57) return INVALID_HANDLE;
  s->magic = 0;
  free(s);
  return OK;
}

CUresult cuStreamSynchronize(struct stream *s) { NEED_CTX(); return stream_ok(s) ? OK : INVALID_HANDLE; }
CUresult cuStreamQuery(struct stream *s) { NEED_CTX(); return stream_ok(s) ? OK : INVALID_HANDLE; }

CUresult cuStreamWaitEvent(struct stream *s, struct event *e, unsigned flags) {
  NEED_CTX();
  if (!stream_ok(s) || !e || e->magic != 0xE7 || flags) return INVALID_HANDLE;
  return OK;
}

CUresult cuEventCreate(struct event **e, unsigned flags) {
  NEED_CTX();
  if (flags & ~3u) return INVALID_VALUE;
  *e = calloc(1, sizeof **e);
  (*e)->ctx = current;
  (*e)->timing = !(flags & 2);
  (*e)->magic = 0xE7;
  return OK;
}

CUresult cuEventDestroy_v2(struct event *e) {
  NEED_CTX();
  if (!e || e->magic != 0xE7) return INVALID_HANDLE;
  e->magic = 0;
  free(e);
  return OK;
}

CUresult cuEventRecord(struct event *e, struct stream *s) {
  NEED_CTX();
  if (!e || e->magic != 0xE7 || e->ctx != current || !stream_ok(s)) return INVALID_HANDLE;
  e->t = now();
  e->recorded = 1;
  return OK;
}

CUresult cuEventSynchronize(struct event *e) { NEED_CTX(); return e && e->magic == 0xE7 ? OK : INVALID_HANDLE; }
CUresult cuEventQuery(struct event *e) { NEED_CTX(); return e && e->magic == 0xE7 ? OK : INVALID_HANDLE; }

/* Only the _v2 name, as in CUDA 12.8 and later drivers. */
CUresult cuEventElapsedTime_v2(float *ms, struct event *a, struct event *b) {
  NEED_CTX();
  if (!a || !b || a->magic != 0xE7 || b->magic != 0xE7) return INVALID_HANDLE;
  if (!a->recorded || !b->recorded) return NOT_READY;
  if (!a->timing || !b->timing) return INVALID_HANDLE;
  *ms = (float)((b->t - a->t) * 1e3);
  return OK;
}

/* Modules. The JIT error log receives a message for images that contain
 * the text BAD_PTX, which the tests use to check the log plumbing. */
CUresult cuModuleLoadDataEx(struct module **m, const void *image, unsigned n, int *opts, void **vals) {
  NEED_CTX();
  char *log = NULL;
  size_t logsize = 0;
  for (unsigned i = 0; i < n; i++) {
    if (opts[i] == 5) log = vals[i];
    else if (opts[i] == 6) logsize = (size_t)vals[i];
    else return INVALID_VALUE;
  }
  if (memcmp(image, "\x7f" "ELF", 4) != 0 && strstr(image, "BAD_PTX")) {
    if (log && logsize) snprintf(log, logsize, "ptxas application ptx input, line 7; error   : Unknown symbol 'BAD_PTX'");
    return INVALID_PTX;
  }
  *m = calloc(1, sizeof **m);
  (*m)->ctx = current;
  (*m)->magic = 0x30D;
  (*m)->global_counter = 7; /* as kernels.cu initialises it */
  return OK;
}

CUresult cuModuleUnload(struct module *m) {
  NEED_CTX();
  if (!m || m->magic != 0x30D) return INVALID_HANDLE;
  m->magic = 0;
  free(m);
  return OK;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *size, struct module *m, const char *name) {
  NEED_CTX();
  if (!m || m->magic != 0x30D) return INVALID_HANDLE;
  if (strcmp(name, "counter") != 0) return NOT_FOUND;
  *p = (CUdeviceptr)&m->global_counter;
  *size = sizeof m->global_counter;
  return OK;
}

static const char *kernels[] = {"vecadd", "smem_reverse", "echo_args", "slow_increment", "dpx_check", "copy_u4", NULL};

CUresult cuModuleGetFunction(struct func **f, struct module *m, const char *name) {
  NEED_CTX();
  if (!m || m->magic != 0x30D) return INVALID_HANDLE;
  for (int i = 0; kernels[i]; i++) {
    if (strcmp(kernels[i], name) == 0) {
      *f = calloc(1, sizeof **f);
      (*f)->ctx = m->ctx;
      (*f)->name = kernels[i];
      (*f)->max_dyn_shared = 48 << 10;
      (*f)->magic = 0xF7;
      return OK;
    }
  }
  return NOT_FOUND;
}

CUresult cuFuncSetAttribute(struct func *f, int attr, int v) {
  NEED_CTX();
  if (!f || f->magic != 0xF7) return INVALID_HANDLE;
  if (attr != 8) return INVALID_VALUE;
  if (v < 0 || v > (cc[f->ctx->dev][0] == 9 ? 227 << 10 : 163 << 10)) return INVALID_VALUE;
  f->max_dyn_shared = v;
  return OK;
}

CUresult cuFuncGetAttribute(int *v, int attr, struct func *f) {
  NEED_CTX();
  if (!f || f->magic != 0xF7) return INVALID_HANDLE;
  switch (attr) {
  case 0: *v = 1024; break;
  case 4: *v = 32; break;
  case 8: *v = f->max_dyn_shared; break;
  default: *v = 0;
  }
  return OK;
}

/* Kernel bodies: the whole grid, run in order. */
static int16_t s16(uint32_t x, int hi) { return (int16_t)(hi ? x >> 16 : x & 0xffff); }
static uint32_t pack(int16_t hi, int16_t lo) { return ((uint32_t)(uint16_t)hi << 16) | (uint16_t)lo; }
static int16_t max16(int16_t a, int16_t b) { return a > b ? a : b; }
static int16_t min16(int16_t a, int16_t b) { return a < b ? a : b; }

static CUresult run(struct func *f, unsigned blocks, unsigned threads, unsigned shared, void **p) {
  const char *k = f->name;
  if (!strcmp(k, "vecadd")) {
    const float *a = *(float **)p[0], *b = *(float **)p[1];
    float *c = *(float **)p[2];
    int n = *(int *)p[3];
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  } else if (!strcmp(k, "smem_reverse")) {
    unsigned *out = *(unsigned **)p[0];
    int words = *(int *)p[1];
    if ((size_t)words * 4 > shared) return ILLEGAL_ADDRESS; /* reads past its shared memory */
    for (unsigned b = 0; b < blocks; b++)
      for (int i = 0; i < words; i++) out[(size_t)b * words + i] = (unsigned)(words - 1 - i) ^ (b << 20);
  } else if (!strcmp(k, "echo_args")) {
    unsigned long long *out = *(unsigned long long **)p[0];
    out[0] = (unsigned long long)(long long)*(int *)p[1];
    out[1] = *(unsigned *)p[2];
    out[2] = (unsigned long long)*(long long *)p[3];
    uint32_t fbits;
    memcpy(&fbits, p[4], 4);
    out[3] = fbits;
    memcpy(&out[4], p[5], 8);
    out[5] = *(unsigned long long *)p[6];
    out[6] = (unsigned long long)*(const int **)p[7];
  } else if (!strcmp(k, "slow_increment")) {
    float *x = *(float **)p[0];
    int n = *(int *)p[1];
    for (int i = 0; i < n; i++) x[i] += 1.0f;
  } else if (!strcmp(k, "dpx_check")) {
    const uint32_t *a = *(uint32_t **)p[0], *b = *(uint32_t **)p[1], *c = *(uint32_t **)p[2];
    uint32_t *out = *(uint32_t **)p[3];
    int n = *(int *)p[4];
    for (int i = 0; i < n; i++) {
      int16_t r[2], relu[2], m3[2], mn[2];
      for (int h = 0; h < 2; h++) {
        int16_t sum = (int16_t)(uint16_t)((uint16_t)s16(a[i], h) + (uint16_t)s16(b[i], h));
        r[h] = max16(sum, s16(c[i], h));
        relu[h] = max16(r[h], 0);
        m3[h] = max16(max16(s16(a[i], h), s16(b[i], h)), s16(c[i], h));
        mn[h] = min16(sum, s16(c[i], h));
      }
      int32_t sa = (int32_t)a[i], sb = (int32_t)b[i], sc = (int32_t)c[i];
      int32_t sum32 = (int32_t)((uint32_t)sa + (uint32_t)sb);
      out[0 * n + i] = pack(r[1], r[0]);
      out[1 * n + i] = pack(relu[1], relu[0]);
      out[2 * n + i] = pack(m3[1], m3[0]);
      out[3 * n + i] = (uint32_t)(sum32 > sc ? sum32 : sc);
      out[4 * n + i] = (uint32_t)(sa > sb ? (sa > sc ? sa : sc) : (sb > sc ? sb : sc));
      out[5 * n + i] = pack(mn[1], mn[0]);
    }
  } else if (!strcmp(k, "copy_u4")) {
    void *dst = *(void **)p[0];
    const void *src = *(void **)p[1];
    long long n = *(long long *)p[2];
    memcpy(dst, src, (size_t)n * 16);
  }
  return OK;
}

CUresult cuLaunchKernel(struct func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, struct stream *s, void **params, void **extra) {
  NEED_CTX();
  if (!f || f->magic != 0xF7) return INVALID_HANDLE;
  if (f->ctx != current) return INVALID_CONTEXT; /* launched from another device's context */
  if (!stream_ok(s) || extra) return INVALID_HANDLE;
  if (!gx || !gy || !gz || !bx || !by || !bz) return INVALID_VALUE;
  if ((unsigned long long)bx * by * bz > 1024) return INVALID_VALUE;
  if (shared > (unsigned)f->max_dyn_shared) return INVALID_VALUE;
  if (!params) return INVALID_VALUE;
  return run(f, gx * gy * gz, bx * by * bz, shared, params);
}
