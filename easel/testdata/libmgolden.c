/* libmgolden: our generator of the golden vectors in this directory.
 *
 * It prints "input output" pairs (hexadecimal bit patterns) of one C
 * math function, computed by the C library (and, for sse_expf, by
 * Easel's esl_sse_expf) on the machine it runs on, so that the Go
 * emulations in package easel can be checked bit for bit without a C
 * compiler. Build and run (HMMER 3.3.2 / Easel 0.48 built in $REF):
 *
 *   gcc -O2 -I$REF/easel -o /tmp/libmgolden libmgolden.c $REF/easel/libeasel.a -lm
 *   /tmp/libmgolden expf 0 | gzip -9n > expf.golden.gz
 *   /tmp/libmgolden expf 1 | gzip -9n > expf_ftz.golden.gz
 *   GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 /tmp/libmgolden expf 0 | gzip -9n > expf_sse2.golden.gz
 *   /tmp/libmgolden sse_expf 0 | gzip -9n > sse_expf.golden.gz
 *   /tmp/libmgolden sse_expf 1 | gzip -9n > sse_expf_ftz.golden.gz
 *   /tmp/libmgolden logf 0 | gzip -9n > logf.golden.gz
 *   /tmp/libmgolden log 0 | gzip -9n > log.golden.gz
 *   /tmp/libmgolden exp 0 | gzip -9n > exp.golden.gz
 *
 * The second argument sets the SSE flush-to-zero bit, the mode
 * hmmsearch runs in. Inputs: hand-picked edges, their bit neighbours,
 * and pseudo-random values from a fixed-seed generator, so reruns give
 * identical files.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>

#include "esl_config.h"
#include "easel.h"
#include "esl_sse.h"

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t next64(void) { /* xorshift64*: any fixed sequence will do */
  state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
  return state * 0x2545f4914f6cdd1dULL;
}
static double unif(double lo, double hi) { return lo + (hi - lo) * ((next64() >> 11) * 0x1p-53); }

static float    f_of(uint32_t u) { float f;  memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f)    { uint32_t u; memcpy(&u, &f, 4); return u; }
static double   d_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t v_of(double d)   { uint64_t u; memcpy(&u, &d, 8); return u; }

static float sse_lane(float x) {
  float out[4];
  _mm_storeu_ps(out, esl_sse_expf(_mm_set1_ps(x)));
  return out[0];
}

static void emit32(const char *fn, float x) {
  float y;
  if      (strcmp(fn, "expf") == 0)     y = expf(x);
  else if (strcmp(fn, "sse_expf") == 0) y = sse_lane(x);
  else                                  y = logf(x);
  printf("%08x %08x\n", u_of(x), u_of(y));
}
static void emit64(const char *fn, double x) {
  double y = (strcmp(fn, "log") == 0) ? log(x) : exp(x);
  printf("%016llx %016llx\n", (unsigned long long) v_of(x), (unsigned long long) v_of(y));
}

/* an edge value and its nearest neighbours on both sides */
static void edge32(const char *fn, float x) {
  for (int d = -2; d <= 2; d++) emit32(fn, f_of(u_of(x) + d));
}
static void edge64(const char *fn, double x) {
  for (int d = -2; d <= 2; d++) emit64(fn, d_of(v_of(x) + d));
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: libmgolden expf|sse_expf|logf|log|exp 0|1\n"); return 1; }
  const char *fn = argv[1];
  if (atoi(argv[2])) _mm_setcsr(_mm_getcsr() | 0x8000); /* FTZ */

  if (strcmp(fn, "expf") == 0 || strcmp(fn, "sse_expf") == 0) {
    float edges[] = { 0.0f, 1.0f, -1.0f, 0.5f, 88.0f, -88.0f, 0x1.62e42ep6f, 0x1.62e430p6f,
                      -0x1.9fe368p6f, -0x1.9d1d9ep6f, -87.33654f, -88.3762626647949f,
                      88.3762626647949f, -103.0f, 1e-30f, -1e-30f, 0x1p-126f, -0x1p-126f,
                      0x1p-149f, 32.564632f, -63.09946f, 1e-7f, -1e-7f };
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) edge32(fn, edges[i]);
    uint32_t specials[] = { 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f7fffff, 0xff7fffff, 0x80000000 };
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) emit32(fn, f_of(specials[i]));
    for (int i = 0; i < 4000; i++) emit32(fn, f_of((uint32_t) next64()));            /* any bit pattern */
    for (int i = 0; i < 4000; i++) emit32(fn, (float) unif(-110.0, 95.0));           /* the finite range */
    for (int i = 0; i < 4000; i++) emit32(fn, -(float) unif(0.0, 12.0));             /* -ln(probability) */
  } else if (strcmp(fn, "logf") == 0) {
    float edges[] = { 1.0f, 2.0f, 0.5f, 0x1p-126f, 0x1p-149f, 3.0f / 403.0f, 0.0f, 1e-30f, 0x1.fffffep127f,
                      0.999f, 1.001f, 0x1.6a09e6p-1f };
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) edge32(fn, edges[i]);
    uint32_t specials[] = { 0x7f800000, 0xff800000, 0x7fc00000, 0x80000000, 0xbf800000 };
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) emit32(fn, f_of(specials[i]));
    for (int i = 0; i < 4000; i++) emit32(fn, f_of((uint32_t) next64() & 0x7fffffff));
    for (int i = 0; i < 4000; i++) emit32(fn, (float) unif(0.0, 1.0));
    for (int i = 0; i < 4000; i++) emit32(fn, (float) unif(0.9, 1.1));
  } else {
    int is_log = strcmp(fn, "log") == 0;
    double edges_log[] = { 1.0, 2.0, 0.5, 0x1p-1022, 0x1p-1074, 0.0, 1e-300, 0x1.fffffffffffffp1023,
                           0x1.0f5p-1, 0x1.09p0, 0.999999, 1.000001, 3.0 / 403.0 };
    double edges_exp[] = { 0.0, 1.0, -1.0, 709.782712893384, -708.39641853226408, -745.13321910194111,
                           -745.2, 710.0, 1e-300, -1e-300, 0x1p-54, 512.0, -1022.0 * 0.6931471805599453 };
    double *edges = is_log ? edges_log : edges_exp;
    size_t  nedges = is_log ? sizeof(edges_log) / sizeof(double) : sizeof(edges_exp) / sizeof(double);
    for (size_t i = 0; i < nedges; i++) edge64(fn, edges[i]);
    uint64_t specials[] = { 0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x7ff8000000000000ULL,
                            0x8000000000000000ULL, 0xbff0000000000000ULL };
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) emit64(fn, d_of(specials[i]));
    if (is_log) {
      for (int i = 0; i < 4000; i++) emit64(fn, d_of(next64() & 0x7fffffffffffffffULL));
      for (int i = 0; i < 4000; i++) emit64(fn, unif(0.0, 1.0));                     /* probabilities */
      for (int i = 0; i < 4000; i++) emit64(fn, unif(0.93, 1.07));                   /* the near-1 path */
      for (int i = 0; i < 4000; i++) emit64(fn, (double) f_of((uint32_t) next64() % 0x7f800000u));
    } else {
      for (int i = 0; i < 4000; i++) emit64(fn, d_of(next64()));
      for (int i = 0; i < 4000; i++) emit64(fn, unif(-750.0, 712.0));
      for (int i = 0; i < 4000; i++) emit64(fn, unif(-60.0, 5.0));                   /* lnP, scores */
      for (int i = 0; i < 4000; i++) emit64(fn, unif(-1e-3, 1e-3));
    }
  }
  return 0;
}
