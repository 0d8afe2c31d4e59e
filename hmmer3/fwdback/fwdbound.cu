// The Forward filter's score to within a proven margin (docs/fwdbound.md),
// one warp per target, in an order made for the GPU rather than HMMER's.
//
// Why. fwd.cu reproduces HMMER's striped SSE order bit for bit, which ties
// a target to four threads walking Q vectors serially: latency-bound. The
// filter only needs pass/fail, and BoundMargin bounds how far any order of
// the same float operations can land from HMMER's; the few targets near
// the threshold go to the exact CPU Forward. So here a target gets a warp,
// lane l owns the C = ceil(M/32) consecutive nodes l*C+1 .. l*C+C, and a
// row costs O(C + log 32) dependent steps instead of O(M/4).
//
// A row i, nodes k in natural order (x the residue, all values >= 0):
//   M(k) = odds(x,k) * (B*BM(k) + M'(k-1)*MM(k) + I'(k-1)*IM(k) + D'(k-1)*DM(k))
//   I(k) = M'(k)*MI(k) + I'(k)*II(k)
//   D(k+1) = D(k)*DD(k) + M(k)*MD(k),  D(1) = 0
//   E = sum over k of M(k) + D(k)   (local mode: every M and D enters E)
// (' is the previous row). The D chain is an affine recurrence: each lane
// folds its chunk into one map D_out = A*D_in + B, a warp scan of those
// maps gives every lane its D_in (five shuffle steps), and a second sweep
// of the chunk writes the D values. N, J, C and B follow in float as in
// fwdback.Forward.
//
// Rescaling is by exact powers of two: when E > 2^13 the specials are
// multiplied by 2^-e (e = E's binary exponent) and the row by the same
// factor as the next row reads it. No rounding is added (only flushing of
// values below 2^-126, which docs/fwdbound.md accounts for), and the log
// scale is the integer sum of the e's, returned for the host to multiply
// by ln 2: no libm here.
//
// Layout (fwdbound.go: boundPlan). Per job the transitions of node
// k = l*C+c+1 are two float4 at ((c*32 + l)*2): (BM MM IM DM) and
// (MD MI II DD), the match odds of residue x at (x*C + c)*32 + l; nodes
// past M are zero. A warp's row state is M, I and D of its 32*C nodes in
// shared memory, [c][32] each, so each access of the warp is one line.
//
// FB_MUTATE (tests only): 1 drops the D carry between lanes, 2 leaves the
// D values out of E.

#ifndef FB_MUTATE
#define FB_MUTATE 0
#endif

#define FB_FULL 0xffffffffu

// BoundJob is one query (40 bytes; fwdbound.go: boundJobBytes).
struct BoundJob {
    long long trans, odds;  // float offsets into the batch's arrays
    int M, C;
    float emove, eloop;
    int pad[2];
};

// BoundTask is one target of one job (24 bytes; fwdbound.go).
struct BoundTask {
    long long off;      // its residues in res
    int len, job;
    float loop, move;   // N, C and J loop and move for its length
};

#ifndef FB_SHARED_BASE
extern __shared__ __align__(16) unsigned char fb_smem[];
#define FB_SHARED_BASE fb_smem
#endif

__device__ __forceinline__ float fb_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fb_add(float a, float b) { return __fadd_rn(a, b); }

// fb_left is lane l-1's v, and 0 in lane 0.
__device__ __forceinline__ float fb_left(float v, int lane)
{
    const float w = __shfl_up_sync(FB_FULL, v, 1);
    return lane == 0 ? 0.0f : w;
}

// fb_sum is the sum over the warp, the same bits in every lane (each step
// adds the same two values in either order).
__device__ __forceinline__ float fb_sum(float v)
{
    for (int s = 16; s > 0; s >>= 1) v = fb_add(v, __shfl_xor_sync(FB_FULL, v, s));
    return v;
}

// fb_target runs one target; st is the warp's row state (3*Cmax*32 floats).
__device__ __forceinline__ void fb_target(const BoundJob& j, const BoundTask& t, const float* __restrict__ trans,
                                          const float* __restrict__ odds, const unsigned char* __restrict__ res,
                                          float* st, int Cmax, float* __restrict__ outC, int* __restrict__ outExp,
                                          int task)
{
    const int lane = threadIdx.x & 31;
    const int C = j.C;
    const float4* tr = (const float4*)(trans + j.trans) + 2 * lane;
    const float* od = odds + j.odds + lane;
    float* Ms = st + lane;
    float* Is = st + Cmax * 32 + lane;
    float* Ds = st + 2 * Cmax * 32 + lane;
    for (int c = 0; c < C; c++) Ms[c * 32] = Is[c * 32] = Ds[c * 32] = 0.0f;

    float xN = 1.0f, xJ = 0.0f, xC = 0.0f, xB = t.move;
    float inv = 1.0f;  // the pending power-of-two scale of the stored row
    int etot = 0;
    const unsigned char* r = res + t.off;
    for (int i = 0; i < t.len; i++) {
        const float* rq = od + (long long)r[i] * C * 32;
        // Node k-1 of the previous row for the chunk's first node.
        float mp = fb_left(fb_mul(Ms[(C - 1) * 32], inv), lane);
        float ip = fb_left(fb_mul(Is[(C - 1) * 32], inv), lane);
        float dp = fb_left(fb_mul(Ds[(C - 1) * 32], inv), lane);

        // Sweep 1: M and I, the chunk's D map, M's share of E.
        float A = 1.0f, B = 0.0f, e = 0.0f;
        for (int c = 0; c < C; c++) {
            const float4 ta = tr[c * 64], tb = tr[c * 64 + 1];
            float sv = fb_mul(xB, ta.x);
            sv = fb_add(sv, fb_mul(mp, ta.y));
            sv = fb_add(sv, fb_mul(ip, ta.z));
            sv = fb_add(sv, fb_mul(dp, ta.w));
            sv = fb_mul(sv, rq[c * 32]);
            mp = fb_mul(Ms[c * 32], inv);
            ip = fb_mul(Is[c * 32], inv);
            dp = fb_mul(Ds[c * 32], inv);
            Ms[c * 32] = sv;
            Is[c * 32] = fb_add(fb_mul(mp, tb.y), fb_mul(ip, tb.z));
            B = fb_add(fb_mul(B, tb.w), fb_mul(sv, tb.x));
            A = fb_mul(A, tb.w);
            e = fb_add(e, sv);
        }

        // Inclusive scan of the maps: after it, lane l holds lanes 0..l
        // composed, whose B is D at lane l+1's first node (D(1) = 0).
        for (int s = 1; s < 32; s <<= 1) {
            const float Ap = __shfl_up_sync(FB_FULL, A, s), Bp = __shfl_up_sync(FB_FULL, B, s);
            if (lane >= s) {
                B = fb_add(fb_mul(A, Bp), B);
                A = fb_mul(A, Ap);
            }
        }
        float d = fb_left(B, lane);
#if FB_MUTATE == 1
        d = 0.0f;
#endif

        // Sweep 2: the D values, D's share of E.
        for (int c = 0; c < C; c++) {
            const float4 tb = tr[c * 64 + 1];
            Ds[c * 32] = d;
#if FB_MUTATE != 2
            e = fb_add(e, d);
#endif
            d = fb_add(fb_mul(d, tb.w), fb_mul(Ms[c * 32], tb.x));
        }
        const float xE = fb_sum(e);

        xN = fb_mul(xN, t.loop);
        xC = fb_add(fb_mul(xC, t.loop), fb_mul(xE, j.emove));
        xJ = fb_add(fb_mul(xJ, t.loop), fb_mul(xE, j.eloop));
        xB = fb_add(fb_mul(xJ, t.move), fb_mul(xN, t.move));
        inv = 1.0f;
        if (xE > 8192.0f) {
            // xE's binary exponent (13..127; +Inf or NaN give a harmless
            // factor and a final C the host rejects).
            const int ex = (int)((__float_as_uint(xE) >> 23) & 0xffu) - 127;
            const int ke = ex > 126 ? 126 : ex;
            inv = __uint_as_float((unsigned)(127 - ke) << 23);
            xN = fb_mul(xN, inv);
            xC = fb_mul(xC, inv);
            xJ = fb_mul(xJ, inv);
            xB = fb_mul(xB, inv);
            etot += ke;
        }
    }
    if (lane == 0) {
        outC[task] = xC;
        outExp[task] = etot;
    }
}

// fwdbound_kernel: each warp takes targets from *next until none is left.
// Shared memory: 3*Cmax*32 floats a warp.
extern "C" __global__ void fwdbound_kernel(const BoundJob* __restrict__ jobs, const BoundTask* __restrict__ tasks,
                                           int ntasks, const float* __restrict__ trans,
                                           const float* __restrict__ odds, const unsigned char* __restrict__ res,
                                           int Cmax, unsigned int* next, float* __restrict__ outC,
                                           int* __restrict__ outExp)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    float* st = (float*)FB_SHARED_BASE + (long long)warp * 3 * Cmax * 32;
    for (;;) {
        int k = 0;
        if (lane == 0) k = (int)atomicAdd(next, 1u);
        k = __shfl_sync(FB_FULL, k, 0);
        if (k >= ntasks) return;
        const BoundTask t = tasks[k];
        const BoundJob j = jobs[t.job];
        fb_target(j, t, trans, odds, res, st, Cmax, outC, outExp, k);
    }
}
