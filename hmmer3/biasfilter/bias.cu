// HMMER 3.3.2's bias filter score (p7_bg_FilterScore, as
// profile.(*Background).FilterScore computes it) on the GPU, bit for bit.
// The recurrence is a scaled Forward through a two-state HMM, sequential
// along the target, so each lane of a warp scores one target of a gpudb
// block (T = 1: 32 targets of similar length per warp, residues of a lane
// four to a 32-bit word).
//
// Every operation is the CPU code's, in its order and precision: float
// products and sums rounded one at a time (compile with --fmad=false, and
// --ftz=false since Go keeps subnormals), IEEE division, and glibc's log
// and logf exactly as easel.Log and easel.Logf reimplement them (double
// fused multiply-adds through fma(), the same tables). The tables are
// generated into the source by gpu.go (LOG_A0..., LOG_TAB, LOGF_TAB) and
// copied to shared memory, since lanes index them at random.
//
// Compile-time parameter: BLOCK (threads per block).

#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char bias_smem[];
#define SHARED_BASE bias_smem
#endif

typedef unsigned long long u64;

struct BiasBlock {
    int seq[32];
    int len[32];
    int maxLen;
    int nseq;
    long long off;
};

__device__ __forceinline__ u64 dbits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ double bitsd(u64 u) { return __longlong_as_double((long long)u); }
__device__ __forceinline__ unsigned fbits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ float bitsf(unsigned u) { return __uint_as_float(u); }

// glibc_log_near1 is log(x) for x in [1-2^-4, 1+0x1.09p-4): log1p(r) with
// r = x-1 as r - r^2/2 + r^3 p(r), r^2/2 split into exact high and low parts.
__device__ double glibc_log_near1(double x)
{
    if (dbits(x) == 0x3ff0000000000000ull) return 0;
    double r = x - 1;
    double r2 = r * r;
    double r3 = r * r2;
    double p = fma(r2, LOG_B3, fma(r, LOG_B2, LOG_B1));
    double q = fma(r2, LOG_B6, fma(r, LOG_B5, LOG_B4));
    double s = fma(r3, LOG_B10, fma(r2, LOG_B9, fma(r, LOG_B8, LOG_B7)));
    double poly = fma(fma(s, r3, q), r3, p);
    double rhi = fma(r, 0x1p27, r) - r * 0x1p27;  // r with its low 27 bits cleared
    double rlo = r - rhi;
    double rhi2 = rhi * rhi;
    double hi = fma(rhi2, LOG_B0, r);
    double lo = fma(rhi2, LOG_B0, r - hi);
    lo = fma(LOG_B0 * rlo, rhi + r, lo);
    double y = fma(poly, r3, lo);
    return hi + y;
}

// glibc_log is glibc 2.36's log (FMA build) = easel.Log; tab holds the 128
// (invc, logc) pairs.
__device__ double glibc_log(double x, const double* tab)
{
    u64 ix = dbits(x);
    if (ix - 0x3fee000000000000ull < 0x3ff1090000000000ull - 0x3fee000000000000ull) return glibc_log_near1(x);
    u64 top = ix >> 48;
    if (top - 0x10 >= 0x7ff0 - 0x10) {
        if ((ix << 1) == 0) return bitsd(0xfff0000000000000ull);  // -inf
        if (ix == 0x7ff0000000000000ull) return x;                // +inf
        if ((top & 0x8000) != 0 || (top & 0x7ff0) == 0x7ff0) return bitsd(0x7ff8000000000000ull);  // NaN
        ix = dbits(x * 0x1p52) - (52ull << 52);  // subnormal: scale up, fix the exponent
    }
    u64 tmp = ix - 0x3fe6000000000000ull;
    int i = (int)((tmp >> 45) % 128);
    long long k = ((long long)tmp) >> 52;
    double z = bitsd(ix - (tmp & (0xfffull << 52)));
    double invc = tab[2 * i], logc = tab[2 * i + 1];
    double kd = (double)(int)k;
    double r = fma(z, invc, -1.0);
    double w = fma(kd, LOG_LN2HI, logc);
    double hi = r + w;
    double lo = fma(kd, LOG_LN2LO, (w - hi) + r);
    double r2 = r * r;
    double p = fma(fma(r, LOG_A4, LOG_A3), r2, fma(r, LOG_A2, LOG_A1));
    double y = fma(r * r2, p, fma(r2, LOG_A0, lo));
    return y + hi;
}

// glibc_logf is glibc 2.36's logf (FMA build) = easel.Logf; tab holds the
// 16 (invc, logc) pairs.
__device__ float glibc_logf(float x, const double* tab)
{
    unsigned ix = fbits(x);
    if (ix == 0x3f800000u) return 0;
    if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u) {
        if ((ix << 1) == 0) return bitsf(0xff800000u);  // -inf
        if (ix == 0x7f800000u) return x;
        if ((ix & 0x80000000u) != 0 || (ix << 1) >= 0xff000000u) return bitsf(0x7fc00000u);
        ix = fbits(x * 0x1p23f) - (23u << 23);
    }
    unsigned tmp = ix - 0x3f330000u;
    int i = (int)((tmp >> 19) % 16);
    int k = ((int)tmp) >> 23;
    double z = (double)bitsf(ix - (tmp & 0xff800000u));
    double invc = tab[2 * i], logc = tab[2 * i + 1];
    double r = fma(z, invc, -1.0);
    double y0 = fma((double)k, LOGF_LN2, logc);
    double r2 = r * r;
    double y = fma(LOGF_A1, r, LOGF_A2);
    y = fma(LOGF_A0, r2, y);
    y = fma(y, r2, r + y0);
    return (float)y;
}

// Shared memory: log's 256 doubles, logf's 32, then kp float2 odds.
#define BIAS_LOGTAB 0
#define BIAS_LOGFTAB (256 * 8)
#define BIAS_ODDS (288 * 8)

// par: T[0][2], T[1][0], T[1][1], T[1][2], Pi[0], Pi[1]. odds: kp pairs.
// Writes out[seq] for every target of every block, pulling blocks from the
// counter *next.
extern "C" __global__ void __launch_bounds__(BLOCK)
bias_kernel(const float* __restrict__ par, const float2* __restrict__ odds, int kp,
            const unsigned char* __restrict__ res, const BiasBlock* __restrict__ blocks, int nblocks,
            unsigned int* next, float* __restrict__ out)
{
    double* ltab = (double*)(SHARED_BASE + BIAS_LOGTAB);
    double* lftab = (double*)(SHARED_BASE + BIAS_LOGFTAB);
    float2* sodds = (float2*)(SHARED_BASE + BIAS_ODDS);
    for (int i = threadIdx.x; i < 256; i += blockDim.x) ltab[i] = LOG_TAB[i];
    for (int i = threadIdx.x; i < 32; i += blockDim.x) lftab[i] = LOGF_TAB[i];
    for (int i = threadIdx.x; i < kp; i += blockDim.x) sodds[i] = odds[i];
    __syncthreads();
    const float t02 = par[0], t10 = par[1], t11 = par[2], t12 = par[3], pi0 = par[4], pi1 = par[5];
    const int lane = threadIdx.x & 31;

    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(0xffffffffu, b, 0);
        if (b >= nblocks) return;
        const BiasBlock* blk = &blocks[b];
        if (lane >= blk->nseq) continue;
        const int L = blk->len[lane];
        if (L <= 0) continue;
        const unsigned* words = (const unsigned*)(res + blk->off) + lane;

        // SetLength(L): the null model's length distribution.
        const float p1 = (float)L / (float)(L + 1);
        const float t00 = p1, t01 = 1.0f - p1;

        unsigned four = words[0];
        float2 e = sodds[four & 0xff];
        float dp0 = e.x * pi0, dp1 = e.y * pi1;
        float mx = 0;
        if (dp0 > mx) mx = dp0;
        if (dp1 > mx) mx = dp1;
        dp0 = dp0 / mx;
        dp1 = dp1 / mx;
        float logsc = 0.0f + (float)glibc_log((double)mx, ltab);
        for (int i = 1; i < L; i++) {
            if ((i & 3) == 0) four = words[(i >> 2) * 32];
            e = sodds[(four >> (8 * (i & 3))) & 0xff];
            float v0 = 0;
            v0 = v0 + dp0 * t00;
            v0 = v0 + dp1 * t10;
            v0 = v0 * e.x;
            float v1 = 0;
            v1 = v1 + dp0 * t01;
            v1 = v1 + dp1 * t11;
            v1 = v1 * e.y;
            mx = 0;
            if (v0 > mx) mx = v0;
            if (v1 > mx) mx = v1;
            dp0 = v0 / mx;
            dp1 = v1 / mx;
            logsc = logsc + (float)glibc_log((double)mx, ltab);
        }
        float end = 0;
        end = end + dp0 * t02;
        end = end + dp1 * t12;
        logsc = logsc + (float)glibc_log((double)end, ltab);
        float sc = logsc + (float)L * glibc_logf(p1, lftab);
        sc = sc + glibc_logf((float)(1.0 - (double)p1), lftab);
        out[blk->seq[lane]] = sc;
    }
}
